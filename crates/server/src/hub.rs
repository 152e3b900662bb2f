//! Push to the WebSocket clients of this instance: one broadcast channel
//! per watched game, carrying the game's view as JSON text, serialized once
//! per change whatever the number of watchers.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use tokio::sync::broadcast;

use crate::model::GameView;

/// Messages kept for a slow client before it is sent the latest state
/// instead (every state is complete, so skipping loses nothing). Kept
/// small: the channel holds on to its last messages, which are most of a
/// watched game's memory.
const BACKLOG: usize = 2;

#[derive(Debug, Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, broadcast::Sender<Utf8Bytes>>>,
}

impl Hub {
    /// Starts watching a game.
    pub fn subscribe(&self, id: &str) -> broadcast::Receiver<Utf8Bytes> {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        channels.entry(id.to_string()).or_insert_with(|| broadcast::channel(BACKLOG).0).subscribe()
    }

    pub fn has_watchers(&self, id: &str) -> bool {
        let channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        channels.get(id).is_some_and(|c| c.receiver_count() > 0)
    }

    /// Connected watchers, all games together.
    pub fn watchers(&self) -> usize {
        let channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        channels.values().map(|c| c.receiver_count()).sum()
    }

    /// Sends the new state of a game to its watchers here.
    pub fn publish(&self, id: &str, view: &GameView) {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        let Some(sender) = channels.get(id) else { return };
        if sender.receiver_count() == 0 {
            channels.remove(id);
            return;
        }
        let _ = sender.send(state_message(view));
    }
}

/// `{"type":"state","game":{...}}`, serialized straight from the view
/// (no intermediate JSON tree).
pub fn state_message(view: &GameView) -> Utf8Bytes {
    #[derive(Serialize)]
    struct StateMessage<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        game: &'a GameView,
    }
    let text = serde_json::to_string(&StateMessage { kind: "state", game: view })
        .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"error\":\"cannot encode the state: {e}\"}}"));
    Utf8Bytes::from(text)
}
