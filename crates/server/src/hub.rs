//! Push to the WebSocket clients of this instance: one broadcast channel
//! per watched game, carrying each change as JSON text, serialized once per
//! change whatever the number of watchers.
//!
//! A change made here is pushed as an `update`: the game now without its
//! moves, and how the move list changed (moves kept, moves added), so that
//! a push costs the same at move 10 and at move 500. A change heard of from
//! another instance is pushed as a complete `state`. Each socket checks
//! that an update follows the state its client has (`api.rs`, `session`),
//! and sends a complete state instead when it does not.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::model::{GameEvent, GameNow, GameView, one_of};

/// Messages kept for a slow client before it is sent the latest state
/// instead (a complete state, so skipping loses nothing). Kept small: the
/// channel holds on to its last messages.
const BACKLOG: usize = 2;

/// One change, ready to send.
#[derive(Clone, Debug)]
pub struct Push {
    /// The game's version after the change.
    pub version: i64,
    /// An `update` (applies to the state of `version - 1`), or a complete
    /// `state`.
    pub update: bool,
    pub text: Utf8Bytes,
}

#[derive(Debug, Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, broadcast::Sender<Push>>>,
}

impl Hub {
    /// Starts watching a game.
    pub fn subscribe(&self, id: &str) -> broadcast::Receiver<Push> {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        channels.entry(id.to_string()).or_insert_with(|| broadcast::channel(BACKLOG).0).subscribe()
    }

    /// A watcher of game `id` has gone (its receiver dropped): the game's
    /// channel goes too if it was the last. Otherwise the channel of a game
    /// that ended, and so is never pushed again, stayed for ever with its
    /// last messages.
    pub fn unsubscribe(&self, id: &str) {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        if channels.get(id).is_some_and(|c| c.receiver_count() == 0) {
            channels.remove(id);
        }
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

    /// Sends the complete state of a game to its watchers here.
    pub fn publish(&self, id: &str, view: &GameView) {
        self.send(id, || Push { version: view.now.version, update: false, text: state_message(view) });
    }

    /// Sends a change made here: the game now, and its move list cut to
    /// `keep` moves, then `add` appended; with its event, if any.
    pub fn publish_update(&self, id: &str, now: &GameNow, keep: i64, add: &[String], event: Option<GameEvent>) {
        self.send(id, || Push { version: now.version, update: true, text: update_message(now, keep, add, event) });
    }

    /// Serializes (only if someone watches) and sends.
    fn send(&self, id: &str, push: impl FnOnce() -> Push) {
        let sender = {
            let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
            let Some(sender) = channels.get(id) else { return };
            if sender.receiver_count() == 0 {
                channels.remove(id);
                return;
            }
            sender.clone()
        };
        // Serialized outside the hub's lock, which every game shares. The
        // game's own lock, held by the caller, keeps its pushes in order.
        let _ = sender.send(push());
    }
}

/// What the server sends on `/api/games/{id}/ws`: `hello` once, then
/// `state` now, then after every change an `update` to apply to the game
/// the socket sent last (or a complete `state`), and `error` when a
/// command of this socket failed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
#[schema(example = json!({ "type": "error", "status": 409, "error": "it is not your turn", "id": 17 }))]
pub enum WsServerMessage<'a> {
    Hello {
        /// The seat of the socket's token; null for spectators.
        #[schema(schema_with = one_of::side_or_null)]
        you: Option<&'static str>,
    },
    State {
        game: &'a GameView,
    },
    /// A change: applies to the game of version `game.version - 1`, which
    /// is what this socket sent last.
    Update {
        game: &'a GameNow,
        history: HistoryChange<'a>,
        /// What came with the change that the game does not show (a draw
        /// offer declined); left out when nothing did. Only updates carry
        /// it: a client sent a complete `state` instead is not told.
        #[serde(skip_serializing_if = "Option::is_none")]
        event: Option<GameEvent>,
    },
    Error {
        /// The HTTP status the same request would get.
        status: u16,
        error: String,
        /// The refusal's stable name, as in an HTTP error's body.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schema(schema_with = crate::error::error_code)]
        code: Option<&'static str>,
        /// With `illegal_move`: the move as it was sent.
        #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
        mv: Option<String>,
        /// The failed command's `id`, if it had one.
        id: Option<Value>,
    },
}

/// How the move list changed: keep its first `keep` moves, then append
/// `add`.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryChange<'a> {
    #[schema(minimum = 0)]
    pub keep: i64,
    pub add: &'a [String],
}

impl WsServerMessage<'_> {
    /// A failed command's answer: the error as HTTP gives it, and the command's `id`.
    pub fn error(e: ApiError, id: Option<Value>) -> WsServerMessage<'static> {
        let status = e.status.as_u16();
        let ErrorBody { error, code, mv } = ErrorBody::from(e);
        WsServerMessage::Error { status, error, code, mv, id }
    }

    /// The message as JSON text, serialized straight from the views (no
    /// intermediate JSON tree).
    pub fn text(&self) -> Utf8Bytes {
        let text = serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"type\":\"error\",\"error\":\"cannot encode the message: {e}\"}}"));
        Utf8Bytes::from(text)
    }
}

pub fn state_message(view: &GameView) -> Utf8Bytes {
    WsServerMessage::State { game: view }.text()
}

/// The game now, its move list cut to `keep` moves with `add` appended, and
/// the change's event.
pub fn update_message(now: &GameNow, keep: i64, add: &[String], event: Option<GameEvent>) -> Utf8Bytes {
    WsServerMessage::Update { game: now, history: HistoryChange { keep, add }, event }.text()
}

#[cfg(test)]
mod tests {
    use super::Hub;

    #[test]
    fn a_game_channel_goes_with_its_last_watcher() {
        let hub = Hub::default();
        let (a, b) = (hub.subscribe("g1"), hub.subscribe("g1"));
        drop(a);
        hub.unsubscribe("g1");
        assert!(hub.has_watchers("g1"), "one watcher is left");
        drop(b);
        hub.unsubscribe("g1");
        assert!(hub.channels.lock().unwrap().is_empty(), "the channel is gone");
    }
}
