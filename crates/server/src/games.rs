//! What can happen to a game, decided by the game policy (`policy.rs`)
//! against the rules and committed to the store before anyone hears of it.
//!
//! Every action runs under the game's lock on this instance, is checked on
//! the cached game, and is committed with a compare-and-swap on the game's
//! version. If another instance changed the game meanwhile, the swap fails,
//! the game is reloaded and the action is checked again once more.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use monte_rules::any::AnyGame;
use monte_rules::{GameKind, Side};
use monte_store::{AccountRow, BackendKind, GameRow, GameStatus, ListFilter, Player, SeatRow, Store, Update};
use tokio::sync::{Mutex as AsyncMutex, mpsc};

use crate::error::{ApiError, ApiResult, Refusal};
use crate::hub::Hub;
use crate::metrics::{Metrics, Mover};
use crate::model::{GameSummary, GameView, Loaded, creation_ms, hash_token, new_token, now_ms, random_id};
pub use crate::policy::Action;
use crate::policy::{self, ABORTED, Door, GameChange, LENGTH_CAP, Plan, STOPPED, flag_plan, plan};

type Slot = Arc<AsyncMutex<Option<Loaded>>>;

/// The games of this instance: cache, store and push.
#[derive(Debug)]
pub struct Games {
    pub store: Store,
    pub hub: Hub,
    cache: Mutex<HashMap<String, Slot>>,
    /// Games that may need an AI move (see `ai.rs`).
    ai_queue: mpsc::UnboundedSender<String>,
    /// Plies after which a game ends by the rule set's count
    /// ([`AnyGame::limit_outcome`]), reason `length cap`.
    max_plies: i64,
    /// Games read from the database and replayed (the cost a read of a
    /// current cached game does not pay).
    replays: std::sync::atomic::AtomicU64,
    pub metrics: Arc<Metrics>,
}

/// How a seat is filled at creation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatSpec {
    /// The creator takes it (and gets its token).
    Me,
    /// Waits for someone with the invite.
    Open,
    Ai(u8),
}

impl FromStr for SeatSpec {
    type Err = ApiError;
    fn from_str(s: &str) -> ApiResult<SeatSpec> {
        match s {
            "me" => Ok(SeatSpec::Me),
            "open" => Ok(SeatSpec::Open),
            _ => match s.strip_prefix("ai:").map(str::parse::<u8>) {
                Some(Ok(n)) if monte_engine::level(n).is_some() => Ok(SeatSpec::Ai(n)),
                Some(_) => Err(ApiError::bad_request(format!("unknown AI level in `{s}` (levels are 1 to 8)"))),
                None => Err(ApiError::bad_request(format!("unknown seat `{s}` (expected me, open or ai:LEVEL)"))),
            },
        }
    }
}

/// A new game as asked for.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub kind: String,
    pub rules: String,
    pub fen: Option<String>,
    pub white: SeatSpec,
    pub black: SeatSpec,
    pub name: Option<String>,
    /// (minutes, increment seconds)
    pub clock: Option<(f64, f64)>,
    /// Open to anyone: listed among the open games and joined by id.
    pub public: bool,
    /// Counts for the ratings: needs `creator`, the game's default rule
    /// set, a clock, and one seat `me` and the other open.
    pub rated: bool,
    /// The signed-in creator: the account of the seats taken (`me`).
    pub creator: Option<AccountRow>,
}

impl NewGame {
    /// Both seats are the AI's: a game nobody waits for.
    pub fn between_ais(&self) -> bool {
        matches!((&self.white, &self.black), (SeatSpec::Ai(_), SeatSpec::Ai(_)))
    }
}

/// A new game checked ([`Games::check_new`]).
#[derive(Debug)]
pub struct Checked {
    pub kind: GameKind,
    /// In its canonical form.
    pub rules: String,
    pub game: AnyGame,
    /// (initial, increment) in milliseconds.
    pub clock: Option<(i64, i64)>,
}

/// A created game: its view, the tokens of the creator's seats (given only
/// here) and the invite code if a seat is open.
#[derive(Clone, Debug)]
pub struct Created {
    pub view: GameView,
    pub tokens: Vec<(Side, String)>,
    pub invite: Option<String>,
}

/// A game's lock held by `act`. A move is played on the cached game
/// before its commit; if the commit fails, or the action stops half-way
/// (its future dropped: a client gone), the cached game is dropped here
/// and read again from the database by the next action.
struct Held<'a> {
    guard: tokio::sync::MutexGuard<'a, Option<Loaded>>,
    /// The cached game may differ from what is committed.
    dirty: bool,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.dirty {
            *self.guard = None;
        }
    }
}

pub const MAX_NAME: usize = 40;

impl Games {
    pub fn new(store: Store, hub: Hub, ai_queue: mpsc::UnboundedSender<String>, max_plies: u32) -> Games {
        Games {
            store,
            hub,
            cache: Mutex::new(HashMap::new()),
            ai_queue,
            max_plies: i64::from(max_plies),
            replays: Default::default(),
            metrics: Arc::default(),
        }
    }

    fn slot(&self, id: &str) -> Slot {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.entry(id.to_string()).or_default().clone()
    }

    /// Games held in memory.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Games read from the database and replayed so far.
    pub fn replays(&self) -> u64 {
        self.replays.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn load(&self, id: &str) -> ApiResult<Loaded> {
        self.replays.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let row = self.store.load_game(id).await?.ok_or_else(|| ApiError::not_found(format!("no game `{id}`")))?;
        Loaded::replay(row)
    }

    /// The current game as the database has it (other instances may have
    /// changed it), refreshing the cache, copied.
    pub async fn get(&self, id: &str) -> ApiResult<Loaded> {
        self.fresh(id, Loaded::clone).await
    }

    /// `f` of the current game as the database has it, under the game's
    /// lock. Only the game's version is read when the cached copy is
    /// current: a read costs no replay of the moves, at any length.
    pub async fn fresh<T>(&self, id: &str, f: impl FnOnce(&Loaded) -> T) -> ApiResult<T> {
        check_id(id)?;
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        let version = self.store.game_version(id).await;
        if let (Ok(Some(version)), Some(cached)) = (&version, guard.as_ref())
            && cached.row.version == *version
        {
            return Ok(f(cached));
        }
        let loaded = match version {
            Ok(Some(_)) => self.load(id).await,
            Ok(None) => Err(ApiError::not_found(format!("no game `{id}`"))),
            Err(e) => Err(e.into()),
        };
        match loaded {
            Ok(loaded) => {
                let answer = f(&loaded);
                *guard = Some(loaded);
                Ok(answer)
            }
            Err(e) => {
                drop(guard);
                self.forget(id);
                Err(e)
            }
        }
    }

    /// The cached game (loaded if not cached), copied.
    pub async fn current(&self, id: &str) -> ApiResult<Loaded> {
        self.read(id, Loaded::clone).await
    }

    /// `f` of the cached game (loaded if not cached), under the game's lock:
    /// for WebSocket greetings, without copying the game.
    pub async fn read<T>(&self, id: &str, f: impl FnOnce(&Loaded) -> T) -> ApiResult<T> {
        check_id(id)?;
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        if let Some(l) = guard.as_ref() {
            return Ok(f(l));
        }
        match self.load(id).await {
            Ok(loaded) => {
                let answer = f(&loaded);
                *guard = Some(loaded);
                Ok(answer)
            }
            Err(e) => {
                drop(guard);
                self.forget(id);
                Err(e)
            }
        }
    }

    fn forget(&self, id: &str) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = cache.get(id)
            && Arc::strong_count(slot) == 1
        {
            cache.remove(id);
        }
    }

    /// Another instance changed game `id`: reload it if anyone here cares,
    /// and tell the watchers.
    pub async fn refresh(&self, id: &str, version: Option<i64>) {
        let known = self.cache.lock().unwrap_or_else(|p| p.into_inner()).contains_key(id);
        if !known && !self.hub.has_watchers(id) {
            return;
        }
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        if let (Some(v), Some(l)) = (version, guard.as_ref())
            && l.row.version >= v
        {
            return;
        }
        match self.load(id).await {
            Ok(loaded) => {
                self.hub.publish(id, &loaded.view(now_ms()));
                if loaded.row.state.ai_to_move {
                    let _ = self.ai_queue.send(id.to_string());
                }
                *guard = Some(loaded);
            }
            Err(_) => *guard = None,
        }
    }

    /// Forget every cached game (after missing notices) and refresh the
    /// watched ones.
    pub async fn resync(&self) {
        let ids: Vec<String> = self.cache.lock().unwrap_or_else(|p| p.into_inner()).keys().cloned().collect();
        for id in ids {
            self.refresh(&id, None).await;
        }
    }

    /// Drops from the cache the finished games nobody watches (read from
    /// the database if asked for again: they held every position they went
    /// through), and, beyond `keep` games, the idle ones nobody watches.
    pub fn trim_cache(&self, keep: usize) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let hub = &self.hub;
        // Being acted on or watched: stays.
        let busy = |id: &str, slot: &Slot| Arc::strong_count(slot) > 1 || hub.has_watchers(id);
        cache.retain(|id, slot| {
            busy(id, slot)
                || match slot.try_lock() {
                    Ok(g) => g.as_ref().is_some_and(|l| l.row.state.status != GameStatus::Over),
                    Err(_) => true,
                }
        });
        if cache.len() > keep {
            cache.retain(|id, slot| busy(id, slot) || slot.try_lock().is_err());
        }
    }

    /// Checks a new game as asked for: its kind, rule set (canonical), start
    /// position, name, clock (in ms) and rating conditions.
    pub fn check_new(&self, new: &NewGame) -> ApiResult<Checked> {
        let kind: GameKind = new.kind.parse().map_err(|e| ApiError::bad_request(format!("{e}")))?;
        let rules = canonical_rules(kind, &new.rules)?;
        let game = AnyGame::new(kind, &rules, new.fen.as_deref().map(str::trim))
            .map_err(|e| ApiError::bad_request(format!("{e}")))?;
        if game.status().is_over() {
            return Err(ApiError::bad_request("the start position is already decided"));
        }
        if let Some(name) = &new.name {
            check_name(name)?;
        }
        if new.rated {
            check_rated(kind, &rules, new)?;
        }
        let clock = match new.clock {
            None => None,
            Some((minutes, increment)) => {
                let valid = (0.0..=24.0 * 60.0).contains(&minutes)
                    && (0.0..=600.0).contains(&increment)
                    && minutes * 60_000.0 + increment * 1000.0 >= 1000.0;
                if !valid {
                    return Err(ApiError::bad_request(
                        "clock: minutes must be 0 to 1440 and increment 0 to 600 seconds, with at least one second",
                    ));
                }
                Some(((minutes * 60_000.0).round() as i64, (increment * 1000.0).round() as i64))
            }
        };
        Ok(Checked { kind, rules, game, clock })
    }

    pub async fn create(&self, new: NewGame) -> ApiResult<Created> {
        let Checked { kind, rules, game, clock } = self.check_new(&new)?;
        let now = now_ms();
        let mut tokens = Vec::new();
        let mut seat = |spec: &SeatSpec, side: Side| match spec {
            SeatSpec::Me => {
                let token = new_token();
                let row = person(&new.creator, new.name.clone(), hash_token(&token));
                tokens.push((side, token));
                row
            }
            SeatSpec::Open => SeatRow { player: Player::Human, name: None, token_hash: None, account: None },
            SeatSpec::Ai(n) => SeatRow {
                player: Player::Ai(*n),
                name: monte_engine::level(*n).map(|l| l.name.to_string()),
                token_hash: None,
                account: None,
            },
        };
        let mut white = seat(&new.white, Side::White);
        let mut black = seat(&new.black, Side::Black);
        if new.between_ais() {
            // Two AIs: the creator's token holds both seats, to stop the
            // game (it cannot move for them); nobody else can.
            let token = new_token();
            white.token_hash = Some(hash_token(&token));
            black.token_hash = white.token_hash.clone();
            tokens.push((Side::White, token.clone()));
            tokens.push((Side::Black, token));
        }
        let open = new.white == SeatSpec::Open || new.black == SeatSpec::Open;
        if new.public && !open {
            return Err(ApiError::bad_request("public: only a game with an open seat can be open to anyone"));
        }
        let invite = open.then(|| random_id(12));
        let state = policy::new_state(&game, (white, black), open, clock, invite.clone(), now);
        let row = GameRow {
            id: random_id(10),
            kind: kind.name().into(),
            rules,
            start_fen: game.start_fen(),
            clock_initial_ms: clock.map(|c| c.0),
            clock_increment_ms: clock.map(|c| c.1),
            created_at: creation_ms(now),
            listed: new.public,
            rated: new.rated,
            version: 1,
            state,
            moves: Vec::new(),
        };
        self.store.insert_game(&row).await?;
        let loaded = Loaded { row, game };
        let view = loaded.view(now);
        if loaded.row.state.ai_to_move {
            let _ = self.ai_queue.send(loaded.row.id.clone());
        }
        let id = loaded.row.id.clone();
        *self.slot(&id).lock().await = Some(loaded);
        Ok(Created { view, tokens, invite })
    }

    /// Takes an open seat through an invite: `(view, side, token)`.
    pub async fn join(
        &self,
        code: &str,
        side: Option<Side>,
        name: Option<String>,
        account: Option<AccountRow>,
    ) -> ApiResult<(GameView, Side, String)> {
        if code.is_empty() || code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(ApiError::not_found(format!("no invite `{code}`")));
        }
        let id =
            self.store.find_invite(code).await?.ok_or_else(|| ApiError::not_found(format!("no invite `{code}`")))?;
        self.take_seat(&id, Door::Invite(code), side, name, account).await
    }

    /// Takes an open seat of a game open to anyone: `(view, side, token)`.
    pub async fn join_public(
        &self,
        id: &str,
        side: Option<Side>,
        name: Option<String>,
        account: Option<AccountRow>,
    ) -> ApiResult<(GameView, Side, String)> {
        check_id(id)?;
        self.take_seat(id, Door::Public, side, name, account).await
    }

    async fn take_seat(
        &self,
        id: &str,
        door: Door<'_>,
        side: Option<Side>,
        name: Option<String>,
        account: Option<AccountRow>,
    ) -> ApiResult<(GameView, Side, String)> {
        if let Some(name) = &name {
            check_name(name)?;
        }
        let token = new_token();
        let hash = hash_token(&token);
        let (view, taken) = self
            .act(id, None, true, |l, now| {
                let seat = person(&account, name.clone(), hash.clone());
                policy::seat_plan(l, door, side, seat, now)
            })
            .await?;
        Ok((full(view)?, taken, token))
    }

    /// Performs `action` for the holder of `token`: the new view and the
    /// token's side.
    pub async fn perform(&self, id: &str, token: Option<&str>, action: Action) -> ApiResult<(GameView, Side)> {
        let hash = token.map(hash_token);
        let (view, side) = self.perform_as(id, hash.as_deref(), action, true).await?;
        Ok((full(view)?, side))
    }

    /// [`Games::perform`] for a WebSocket command, whose success is seen in
    /// the push: no view is made for the caller, and the token comes hashed
    /// ([`hash_token`], once per socket rather than once per command).
    pub async fn perform_quietly(&self, id: &str, token_hash: Option<&str>, action: Action) -> ApiResult<Side> {
        Ok(self.perform_as(id, token_hash, action, false).await?.1)
    }

    async fn perform_as(
        &self,
        id: &str,
        token_hash: Option<&str>,
        action: Action,
        want_view: bool,
    ) -> ApiResult<(Option<GameView>, Side)> {
        check_id(id)?;
        let hash = token_hash
            .ok_or_else(|| ApiError::unauthorized("this needs a seat token (Authorization: Bearer TOKEN)"))?;
        self.act(id, None, want_view, |l, now| {
            let side =
                l.side_of_hash(hash).ok_or_else(|| ApiError::forbidden("this token holds no seat of this game"))?;
            if l.seat(side).player.is_ai() && !matches!(action, Action::Resign) {
                return Err(ApiError::forbidden(
                    "the AIs move by themselves: their creator's token can only stop the game",
                ));
            }
            Ok((plan(l, side, &action, now, self.max_plies)?, side))
        })
        .await
    }

    /// The holder of a seat (the [`hash_token`] of its token) offers a
    /// rematch of a finished game, or accepts the opponent's offer, which
    /// starts the rematch ([`policy::rematch_plan`]): the game after the
    /// change (if `want_view`) and the holder's side.
    pub async fn rematch(
        &self,
        id: &str,
        token_hash: Option<&str>,
        want_view: bool,
    ) -> ApiResult<(Option<GameView>, Side)> {
        check_id(id)?;
        let hash = token_hash
            .ok_or_else(|| ApiError::unauthorized("this needs a seat token (Authorization: Bearer TOKEN)"))?;
        let new_id = random_id(10);
        // An accepted rematch is stored with the finished game's change,
        // before anyone is told of it: a page sent to it finds it.
        let (view, (side, rematch)) = self
            .act(id, None, want_view, |l, now| {
                let side =
                    l.side_of_hash(hash).ok_or_else(|| ApiError::forbidden("this token holds no seat of this game"))?;
                let (plan, rematch) = policy::rematch_plan(l, side, &new_id, now)?;
                let row = plan.creates.clone();
                Ok((plan, (side, row.zip(rematch))))
            })
            .await?;
        if let Some((row, game)) = rematch {
            // Cached unless a page asked for it first (and loaded it, maybe
            // with a move already played).
            let slot = self.slot(&row.id);
            let mut cached = slot.lock().await;
            if cached.is_none() {
                *cached = Some(Loaded { row, game });
            }
        }
        Ok((view, side))
    }

    /// Plays the AI's move computed for `version` (dropped if the game moved on).
    pub async fn perform_ai(&self, id: &str, version: i64, notation: &str) -> ApiResult<()> {
        self.act(id, Some(version), false, |l, now| {
            let side = l.game.side_to_move();
            if !l.seat(side).player.is_ai() {
                return Err(ApiError::conflict("no AI is to move"));
            }
            let action = Action::Move { text: notation.to_string(), ply: None };
            Ok((plan(l, side, &action, now, self.max_plies)?, ()))
        })
        .await?;
        Ok(())
    }

    /// Ends the game on time if the side to move's flag has fallen.
    pub async fn check_flag(&self, id: &str) -> ApiResult<()> {
        self.act(id, None, false, |l, now| match flag_plan(l, now) {
            Some(p) => Ok((p, ())),
            None => Err(ApiError::conflict("no flag has fallen")),
        })
        .await?;
        Ok(())
    }

    /// Runs `decide` on the current game and commits what it decided; on a
    /// lost race reloads and decides once more. `only_version` refuses any
    /// other version (the AI's move is for the position it searched). The
    /// view of the game after the change is made only if `want_view`.
    ///
    /// `decide` may play the move on the cached game (`GameChange::Played`)
    /// only once nothing can fail any more: an error it returns must leave
    /// the game as it was.
    async fn act<T>(
        &self,
        id: &str,
        only_version: Option<i64>,
        want_view: bool,
        decide: impl Fn(&mut Loaded, i64) -> ApiResult<(Plan, T)>,
    ) -> ApiResult<(Option<GameView>, T)> {
        let slot = self.slot(id);
        let mut held = Held { guard: slot.lock().await, dirty: false };
        // With other instances on the database the cached game may be
        // behind (their notice still on its way): a refusal is confirmed on
        // a fresh copy before it is given.
        let shared = self.store.kind() == BackendKind::Postgres;
        let mut fresh = false;
        let mut reload = held.guard.is_none();
        for _ in 0..4 {
            if reload {
                match self.load(id).await {
                    Ok(l) => *held.guard = Some(l),
                    Err(e) => {
                        *held.guard = None;
                        drop(held);
                        self.forget(id);
                        return Err(e);
                    }
                }
                held.dirty = false;
                fresh = true;
            }
            reload = true;
            let loaded = held.guard.as_mut().ok_or_else(|| ApiError::internal("game vanished"))?;
            let now = now_ms();
            let decided = match only_version {
                Some(v) if v != loaded.row.version => Err(ApiError::conflict("the game changed")),
                _ => decide(loaded, now),
            };
            let (plan, extra) = match decided {
                Ok(d) => d,
                Err(_) if shared && !fresh => continue,
                Err(e) => return Err(e),
            };
            // From here until the commit is known, the cached game may hold
            // a move that is not committed (`GameChange::Played`).
            held.dirty = true;
            let settles_ratings = loaded.row.rated
                && plan.state.status == GameStatus::Over
                && loaded.row.state.status != GameStatus::Over;
            let update = Update {
                state: &plan.state,
                truncate_from: plan.truncate_from,
                append: &plan.append,
                settles_ratings,
                creates: plan.creates.as_ref(),
            };
            let started = std::time::Instant::now();
            let committed = self.store.commit(id, loaded.row.version, &update).await;
            self.metrics.committed(started.elapsed().as_secs_f64(), committed.is_err());
            match committed {
                Ok(true) => {
                    if !plan.append.is_empty() {
                        let by_ai = loaded.seat(loaded.row.state.side_to_move).player.is_ai();
                        self.metrics.moved(if by_ai { Mover::Ai } else { Mover::Player });
                    }
                }
                // Lost a race: the loop reloads the game.
                Ok(false) => continue,
                // Committed or not, nobody knows: `held` drops the cached
                // game, and the next action reads it from the database.
                Err(e) => return Err(e.into()),
            }
            // Committed: now it may be told. The cached game is brought up
            // to date in place (neither its moves nor its positions are
            // copied), and the watchers are sent what changed.
            let next = loaded;
            next.row.version += 1;
            let keep = match plan.truncate_from {
                Some(from) => {
                    next.row.moves.retain(|m| m.ply < from);
                    from
                }
                None => next.row.moves.len() as i64,
            };
            let added: Vec<String> = plan.append.iter().map(|m| m.notation.clone()).collect();
            next.row.moves.extend(plan.append);
            next.row.state = plan.state;
            if let GameChange::Replaced(game) = plan.game {
                next.game = game;
            }
            // The view (the legal moves, the JSON) only if someone needs it.
            let watched = self.hub.has_watchers(id);
            let now_view = (watched || want_view).then(|| next.view_now(now));
            if let Some(v) = now_view.as_ref().filter(|_| watched) {
                self.hub.publish_update(id, v, keep, &added, plan.event);
            }
            if next.row.state.ai_to_move {
                let _ = self.ai_queue.send(id.to_string());
            }
            let view = now_view.filter(|_| want_view).map(|now_view| GameView {
                now: now_view,
                history: next.row.moves.iter().map(|m| m.notation.clone()).collect(),
            });
            held.dirty = false;
            return match plan.then_fail {
                Some(e) => Err(e),
                None => Ok((view, extra)),
            };
        }
        Err(ApiError::conflict("the game is changing too fast: try again"))
    }

    pub async fn list(&self, filter: &ListFilter, limit: i64) -> ApiResult<Vec<GameSummary>> {
        Ok(self.store.list_games(filter, limit).await?.iter().map(Loaded::summary).collect())
    }

    /// The record of a game (with its result when the rules did not end it).
    pub async fn record(&self, id: &str) -> ApiResult<String> {
        let l = self.get(id).await?;
        let s = &l.row.state;
        let player = |seat: &SeatRow| match seat.player {
            Player::Ai(n) => format!("Monte level {n}"),
            Player::Human => seat.name.clone().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| "Anonymous".into()),
        };
        let (white, black) = (player(&s.white), player(&s.black));
        let (date, time) = record_date_time(l.row.created_at);
        let mut tags: Vec<(&str, &str)> = vec![("White", &white), ("Black", &black), ("Date", &date), ("Time", &time)];
        // A rated game's ratings as they were when it began, and what it
        // changed (lichess's tags).
        let changes = if l.row.rated { self.store.game_ratings(id).await? } else { Vec::new() };
        let mut ratings = Vec::new();
        for (side, elo, diff) in
            [(Side::White, "WhiteElo", "WhiteRatingDiff"), (Side::Black, "BlackElo", "BlackRatingDiff")]
        {
            let change = changes.iter().find(|c| s.seat(side).account.as_ref() == Some(&c.account));
            if let Some(c) = change {
                let before = c.rating_before.round() as i64;
                ratings.push((elo, before.to_string()));
                ratings.push((diff, format!("{:+}", c.rating.round() as i64 - before)));
            }
        }
        tags.extend(ratings.iter().map(|(tag, value)| (*tag, value.as_str())));
        let reason = s.reason.clone().unwrap_or_default();
        let by_server =
            matches!(reason.as_str(), "resignation" | "time" | "agreement" | LENGTH_CAP | STOPPED | ABORTED);
        if by_server {
            tags.push(("Termination", &reason));
        }
        let result = if by_server { s.result.as_deref() } else { None };
        Ok(l.game.record(&tags, result).to_string())
    }
}

/// A time in milliseconds since the Unix epoch as the record's `Date`
/// (`2026.12.03`) and `Time` (`10:04:10`), both in UTC; `????.??.??` and
/// `??:??:??` (PGN's unknown) if it is out of range.
fn record_date_time(ms: i64) -> (String, String) {
    let date = time::macros::format_description!("[year].[month].[day]");
    let clock = time::macros::format_description!("[hour]:[minute]:[second]");
    let at = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000)).ok();
    let show = |format: &[time::format_description::BorrowedFormatItem<'_>], unknown: &str| {
        at.and_then(|t| t.format(format).ok()).unwrap_or_else(|| unknown.into())
    };
    (show(date, "????.??.??"), show(clock, "??:??:??"))
}

/// The view `act` was asked for.
pub(crate) fn full(view: Option<GameView>) -> ApiResult<GameView> {
    view.ok_or_else(|| ApiError::internal("no view of the game was made"))
}

/// Checks a client's action against the game and plans its change. A move
/// is played on `l.game` in place, after every check (`act`). A move that
/// reaches `max_plies` ends the game by the rule set's count.
/// The rule set in its canonical text form, checked.
fn canonical_rules(kind: GameKind, text: &str) -> ApiResult<String> {
    if text.len() > 200 {
        return Err(ApiError::bad_request("rules: too long"));
    }
    AnyGame::canonical_rules(kind, text).map_err(|e| ApiError::bad_request(format!("rules: {e}")))
}

/// A seat taken by a person: a signed-in one's carries the account and
/// its name, a guest's the name given (if any).
fn person(account: &Option<AccountRow>, name: Option<String>, token_hash: String) -> SeatRow {
    SeatRow {
        player: Player::Human,
        name: account.as_ref().map(|a| a.name.clone()).or(name),
        token_hash: Some(token_hash),
        account: account.as_ref().map(|a| a.id.clone()),
    }
}

/// Why a game asked for as rated cannot be.
fn check_rated(kind: GameKind, rules: &str, new: &NewGame) -> ApiResult<()> {
    if new.creator.is_none() {
        return Err(ApiError::unauthorized("a rated game needs you signed in").named(Refusal::RatedNeedsAccount));
    }
    if rules != canonical_rules(kind, "seed")? || new.fen.is_some() {
        return Err(ApiError::bad_request("a rated game is played by the default rule set from the start position"));
    }
    if new.clock.is_none() {
        return Err(ApiError::bad_request("a rated game needs a clock"));
    }
    let seats = [&new.white, &new.black];
    if !(seats.contains(&&SeatSpec::Me) && seats.contains(&&SeatSpec::Open)) {
        return Err(ApiError::bad_request("a rated game is between you (`me`) and someone who joins (`open`)"));
    }
    Ok(())
}

fn check_name(name: &str) -> ApiResult<()> {
    if name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(format!("name: at most {MAX_NAME} characters, no control characters")));
    }
    Ok(())
}

/// Game ids are short and alphanumeric: anything else names no game.
pub fn check_id(id: &str) -> ApiResult<()> {
    if id.is_empty() || id.len() > 32 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ApiError::not_found(format!("no game `{}`", id.chars().take(40).collect::<String>())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn record_dates_are_pgn_dates_and_times_in_utc() {
        let pair = |d: &str, t: &str| (d.to_string(), t.to_string());
        assert_eq!(super::record_date_time(0), pair("1970.01.01", "00:00:00"));
        assert_eq!(super::record_date_time(1_796_292_250_999), pair("2026.12.03", "10:04:10"));
        assert_eq!(super::record_date_time(i64::MAX), pair("????.??.??", "??:??:??"));
    }
}
