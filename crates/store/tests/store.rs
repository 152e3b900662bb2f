//! The same behaviour on both backends: every test runs on a fresh SQLite
//! file and on a fresh PostgreSQL database.

use monte_rules::Side;
use monte_store::testing::{TestDatabase, skip_postgres};
use monte_store::{
    AccountRow, GameRow, GameState, GameStatus, ListFilter, MoveRow, Notice, Player, SeatRow, Store, StoreError,
    SynchronousCommit, UnknownValue, Update,
};

fn seat(player: Player, token: Option<&str>) -> SeatRow {
    SeatRow { player, name: None, token_hash: token.map(str::to_string), account: None }
}

fn new_game(id: &str, status: GameStatus, invite: Option<&str>) -> GameRow {
    GameRow {
        id: id.into(),
        kind: "salta".into(),
        rules: "seed".into(),
        start_fen: "start".into(),
        clock_initial_ms: Some(60_000),
        clock_increment_ms: Some(1_000),
        created_at: 1_000,
        listed: false,
        rated: false,
        version: 1,
        state: GameState {
            status,
            ply: 0,
            fen: "start".into(),
            side_to_move: Side::White,
            white: seat(Player::Human, Some("hash-w")),
            black: seat(Player::Ai(1), None),
            invite: invite.map(str::to_string),
            white_ms: Some(60_000),
            black_ms: Some(60_000),
            turn_started_at: Some(1_000),
            deadline_at: Some(61_000),
            draw_offer: None,
            result: None,
            winner: None,
            reason: None,
            margin: None,
            ai_to_move: false,
            updated_at: 1_000,
            rematch_offer: None,
            rematch: None,
        },
        moves: Vec::new(),
    }
}

/// A change of the state that adds `append` (none taken back, no ratings, no game created).
fn moves_only<'a>(state: &'a GameState, append: &'a [MoveRow]) -> Update<'a> {
    Update { state, truncate_from: None, append, settles_ratings: false, creates: None }
}

fn mv(ply: i64, notation: &str) -> MoveRow {
    MoveRow { ply, notation: notation.into(), played_at: 2_000 + ply, white_ms: Some(59_000), black_ms: Some(60_000) }
}

/// A store on a fresh PostgreSQL database (dropped with the second value),
/// or `None` when the PostgreSQL tests are switched off.
async fn postgres_store(test: &str) -> Option<(Store, TestDatabase)> {
    if skip_postgres(test) {
        return None;
    }
    let db = TestDatabase::create().await;
    let store = Store::connect(&db.url, "test-a").await.expect("postgres store");
    Some((store, db))
}

async fn sqlite_store() -> (Store, tempdir::Dir) {
    let dir = tempdir::Dir::new();
    let store = Store::connect(&dir.path.join("monte.db").to_string_lossy(), "test-a").await.expect("sqlite store");
    (store, dir)
}

/// A scratch directory removed afterwards (no extra dependency for it).
mod tempdir {
    pub struct Dir {
        pub path: std::path::PathBuf,
    }
    impl Dir {
        pub fn new() -> Dir {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let path = std::env::temp_dir().join(format!(
                "monte-store-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&path).expect("temp dir");
            Dir { path }
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

async fn moves_commit_once_per_turn(store: &Store) {
    let game = new_game("g1", GameStatus::Active, None);
    store.insert_game(&game).await.unwrap();
    let loaded = store.load_game("g1").await.unwrap().expect("stored");
    assert_eq!(loaded, game);
    assert!(store.load_game("nope").await.unwrap().is_none());

    let mut next = game.state.clone();
    next.ply = 1;
    next.side_to_move = Side::Black;
    let first = [mv(0, "c3-d4")];
    let other = [mv(0, "e3-f4")];
    let update = moves_only(&next, &first);
    // Two writers both saw version 1: exactly one wins.
    let conflicting = moves_only(&next, &other);
    let (a, b) = tokio::join!(store.commit("g1", 1, &update), store.commit("g1", 1, &conflicting));
    assert!(a.unwrap() ^ b.unwrap(), "exactly one of two conflicting moves commits");
    let loaded = store.load_game("g1").await.unwrap().unwrap();
    assert_eq!(loaded.version, 2);
    assert_eq!(loaded.moves.len(), 1);
    assert_eq!(loaded.state, next);
    // A stale version changes nothing.
    assert!(!store.commit("g1", 1, &update).await.unwrap());

    // Take the move back.
    let back = game.state.clone();
    assert!(
        store
            .commit(
                "g1",
                2,
                &Update { state: &back, truncate_from: Some(0), append: &[], settles_ratings: false, creates: None }
            )
            .await
            .unwrap()
    );
    let loaded = store.load_game("g1").await.unwrap().unwrap();
    assert_eq!((loaded.version, loaded.moves.len()), (3, 0));
}

/// Many games' moves at once (group committed together): in every game
/// exactly one of two racing moves lands, and each answer matches what
/// was stored.
async fn concurrent_moves_of_many_games(store: &Store) {
    const GAMES: usize = 40;
    for i in 0..GAMES {
        store.insert_game(&new_game(&format!("many{i}"), GameStatus::Active, None)).await.unwrap();
    }
    let mut next = new_game("x", GameStatus::Active, None).state;
    next.ply = 1;
    next.side_to_move = Side::Black;
    let (first, second) = ([mv(0, "c3-d4")], [mv(0, "e3-f4")]);
    let racing = (0..GAMES).map(|i| {
        let (store, next, first, second) = (store.clone(), next.clone(), first.clone(), second.clone());
        tokio::spawn(async move {
            let id = format!("many{i}");
            let a = moves_only(&next, &first);
            let b = moves_only(&next, &second);
            let (a, b) = tokio::join!(store.commit(&id, 1, &a), store.commit(&id, 1, &b));
            (id, a.unwrap(), b.unwrap())
        })
    });
    for task in racing.collect::<Vec<_>>() {
        let (id, a, b) = task.await.unwrap();
        assert!(a ^ b, "{id}: exactly one of two racing moves commits ({a}, {b})");
        let stored = store.load_game(&id).await.unwrap().unwrap();
        assert_eq!(stored.version, 2, "{id}");
        let expected = if a { "c3-d4" } else { "e3-f4" };
        assert_eq!(stored.moves.iter().map(|m| m.notation.as_str()).collect::<Vec<_>>(), [expected], "{id}");
        assert_eq!(stored.state, next, "{id}");
    }
}

async fn lists_and_claims(store: &Store) {
    let mut open = new_game("open1", GameStatus::Waiting, Some("inv-1"));
    open.listed = true;
    store.insert_game(&open).await.unwrap();
    // Waiting for whoever holds its invite: not listed.
    store.insert_game(&new_game("private1", GameStatus::Waiting, Some("inv-3"))).await.unwrap();
    let mut live = new_game("live1", GameStatus::Active, None);
    live.state.white.token_hash = Some("hash-x".into());
    live.state.ai_to_move = true;
    store.insert_game(&live).await.unwrap();
    let ids = |v: Vec<GameRow>| v.into_iter().map(|g| g.id).collect::<Vec<_>>();
    assert_eq!(ids(store.list_games(&ListFilter::Open, 10).await.unwrap()), ["open1"]);
    assert_eq!(ids(store.list_games(&ListFilter::Live, 10).await.unwrap()), ["live1"]);
    let mine = store.list_games(&ListFilter::Seats(vec!["hash-x".into(), "zzz".into()]), 10).await.unwrap();
    assert_eq!(ids(mine), ["live1"]);
    assert!(store.list_games(&ListFilter::Seats(vec![]), 10).await.unwrap().is_empty());
    assert_eq!(store.find_invite("inv-1").await.unwrap().as_deref(), Some("open1"));
    assert_eq!(store.find_invite("inv-2").await.unwrap(), None);

    // AI claims: one holder at a time, until the lease runs out.
    assert_eq!(store.pending_ai(10_000, 5_000, 10).await.unwrap(), ["live1"]);
    assert!(store.claim_ai("live1", 1, 10_000, 5_000).await.unwrap());
    assert!(!store.claim_ai("live1", 1, 11_000, 5_000).await.unwrap());
    assert!(store.pending_ai(11_000, 5_000, 10).await.unwrap().is_empty());
    assert!(store.claim_ai("live1", 1, 16_000, 5_000).await.unwrap(), "an expired claim can be taken over");
    assert!(!store.claim_ai("live1", 2, 30_000, 5_000).await.unwrap(), "a claim is for one version");

    // Clocks: flagged games, and the downtime credit at start-up.
    assert_eq!(store.flagged(61_000, 10).await.unwrap(), ["live1"]);
    assert_eq!(store.heartbeat(100_000, true, 5_000).await.unwrap(), 0, "first start: nothing to credit");
    assert_eq!(store.heartbeat(101_000, false, 5_000).await.unwrap(), 0);
    assert_eq!(store.heartbeat(131_000, true, 5_000).await.unwrap(), 30_000);
    let g = store.load_game("live1").await.unwrap().unwrap();
    assert_eq!(g.state.deadline_at, Some(91_000));
    assert_eq!(g.state.turn_started_at, Some(31_000));
    assert!(store.flagged(61_000, 10).await.unwrap().is_empty());
}

/// Runs `sql` on the database of `url` beside the store (as another program
/// would): the first column of each row it returns, as text.
async fn raw_sql(url: &str, sql: &str) -> Vec<String> {
    use sqlx::{Connection, Row};
    if url.starts_with("postgres") {
        let rows = sqlx::query(sql).fetch_all(&mut sqlx::PgConnection::connect(url).await.unwrap()).await;
        rows.unwrap().iter().map(|r| r.get(0)).collect()
    } else {
        let rows = sqlx::query(sql).fetch_all(&mut sqlx::SqliteConnection::connect(url).await.unwrap()).await;
        rows.unwrap().iter().map(|r| r.get(0)).collect()
    }
}

/// Statuses, sides and players are stored as the text they always were
/// (the names the API sends), and a text that names none of them is an
/// error naming the game, not a panic.
async fn values_are_stored_as_their_text(store: &Store, url: &str) {
    let mut game = new_game("typed", GameStatus::Over, None);
    game.state.side_to_move = Side::Black;
    game.state.draw_offer = Some(Side::White);
    game.state.winner = Some(Side::Black);
    game.state.result = Some("0-1".into());
    store.insert_game(&game).await.unwrap();
    assert_eq!(store.load_game("typed").await.unwrap().as_ref(), Some(&game));
    let columns = "status || ' ' || side_to_move || ' ' || draw_offer || ' ' || winner || ' ' || white_player \
                   || ' ' || black_player";
    let stored = raw_sql(url, &format!("SELECT {columns} FROM games WHERE id = 'typed'")).await;
    assert_eq!(stored, ["over black white black human ai:1"]);

    let unknown = [
        ("status = 'paused'", "status", "paused"),
        ("side_to_move = 'red'", "side", "red"),
        ("winner = 'White'", "side", "White"),
        ("black_player = 'ai:x'", "player", "ai:x"),
    ];
    for (change, what, text) in unknown {
        raw_sql(url, &format!("UPDATE games SET {change} WHERE id = 'typed'")).await;
        let expected = UnknownValue { what, text: text.into() };
        match store.load_game("typed").await {
            Err(StoreError::UnknownValue { id, source }) => assert_eq!((id.as_str(), source), ("typed", expected)),
            other => panic!("{change}: {other:?}"),
        }
        let listed = store.list_games(&ListFilter::Seats(vec!["hash-w".into()]), 10).await;
        assert!(matches!(listed, Err(StoreError::UnknownValue { .. })), "{change}: {listed:?}");
        // Back as it was, for the next one.
        let restore = "status = 'over', side_to_move = 'black', winner = 'black', black_player = 'ai:1'";
        raw_sql(url, &format!("UPDATE games SET {restore} WHERE id = 'typed'")).await;
    }
    assert_eq!(store.load_game("typed").await.unwrap().as_ref(), Some(&game));
}

#[tokio::test]
async fn sqlite_moves_commit_once_per_turn() {
    let (store, _dir) = sqlite_store().await;
    moves_commit_once_per_turn(&store).await;
    assert!(store.listen().await.unwrap().is_none());
}

#[tokio::test]
async fn sqlite_values_are_stored_as_their_text() {
    let (store, dir) = sqlite_store().await;
    let url = format!("sqlite:{}", dir.path.join("monte.db").display());
    values_are_stored_as_their_text(&store, &url).await;
}

#[tokio::test]
async fn postgres_values_are_stored_as_their_text() {
    let Some((store, db)) = postgres_store("postgres_values_are_stored_as_their_text").await else { return };
    values_are_stored_as_their_text(&store, &db.url).await;
    store.close().await;
}

#[tokio::test]
async fn sqlite_lists_and_claims() {
    let (store, _dir) = sqlite_store().await;
    lists_and_claims(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_concurrent_moves_of_many_games() {
    let (store, _dir) = sqlite_store().await;
    concurrent_moves_of_many_games(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_concurrent_moves_of_many_games() {
    let Some((store, _db)) = postgres_store("postgres_concurrent_moves_of_many_games").await else { return };
    concurrent_moves_of_many_games(&store).await;
    store.close().await;
}

#[tokio::test]
async fn sqlite_file_survives_reopening() {
    let dir = tempdir::Dir::new();
    let path = dir.path.join("monte.db").to_string_lossy().into_owned();
    let store = Store::connect(&path, "a").await.unwrap();
    store.insert_game(&new_game("kept", GameStatus::Active, None)).await.unwrap();
    store.close().await;
    // Closed: everything is in the database file, the WAL is empty.
    let wal = std::fs::metadata(dir.path.join("monte.db-wal")).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal, 0, "the WAL after closing");
    let store = Store::connect(&format!("sqlite:{path}"), "b").await.unwrap();
    assert!(store.load_game("kept").await.unwrap().is_some());
    assert!(dir.path.join("monte.db-wal").exists() || dir.path.join("monte.db").exists());
}

#[tokio::test]
async fn postgres_moves_commit_once_per_turn() {
    let Some((store, _db)) = postgres_store("postgres_moves_commit_once_per_turn").await else { return };
    let mut listener = store.listen().await.unwrap().expect("postgres listens");
    moves_commit_once_per_turn(&store).await;
    // Both committed changes were announced, in order, with the instance.
    for version in [2, 3] {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(5), listener.next()).await.unwrap().unwrap();
        assert_eq!(notice, Notice::Changed { id: "g1".into(), version, instance: "test-a".into() });
    }
    // The listener holds a pooled connection, and closing the pool waits
    // for every connection: closing before dropping it hung (now and then).
    drop(listener);
    store.close().await;
}

/// A game created by a change (a rematch) is stored in the change's
/// transaction: with it, or not at all.
async fn a_created_game_is_stored_with_its_change(store: &Store) {
    store.insert_game(&new_game("old", GameStatus::Over, None)).await.unwrap();
    store.insert_game(&new_game("taken", GameStatus::Active, None)).await.unwrap();
    let named = |rematch: &str| {
        let mut state = new_game("old", GameStatus::Over, None).state;
        state.rematch = Some(rematch.into());
        state
    };
    let commit = async |version: i64, state: &GameState, created: &GameRow| {
        let update = Update { state, truncate_from: None, append: &[], settles_ratings: false, creates: Some(created) };
        store.commit("old", version, &update).await
    };
    let old_unchanged = async || {
        let old = store.load_game("old").await.unwrap().unwrap();
        assert_eq!((old.version, old.state.rematch), (1, None));
    };
    let rematch = new_game("new1", GameStatus::Active, None);
    // A stale version: neither the change nor the new game.
    assert!(!commit(7, &named("new1"), &rematch).await.unwrap());
    assert!(store.load_game("new1").await.unwrap().is_none());
    old_unchanged().await;
    // The new game cannot be stored (its id is taken): the change fails too.
    let clash = new_game("taken", GameStatus::Active, None);
    assert!(commit(1, &named("taken"), &clash).await.is_err());
    old_unchanged().await;
    // Both, at once.
    assert!(commit(1, &named("new1"), &rematch).await.unwrap());
    assert_eq!(store.load_game("new1").await.unwrap().as_ref(), Some(&rematch));
    let old = store.load_game("old").await.unwrap().unwrap();
    assert_eq!((old.version, old.state.rematch.as_deref()), (2, Some("new1")));
}

#[tokio::test]
async fn sqlite_a_created_game_is_stored_with_its_change() {
    let (store, _dir) = sqlite_store().await;
    a_created_game_is_stored_with_its_change(&store).await;
}

#[tokio::test]
async fn postgres_a_created_game_is_stored_with_its_change() {
    let Some((store, _db)) = postgres_store("postgres_a_created_game_is_stored_with_its_change").await else { return };
    a_created_game_is_stored_with_its_change(&store).await;
    store.close().await;
}

#[tokio::test]
async fn postgres_lists_and_claims() {
    let Some((store, db)) = postgres_store("postgres_lists_and_claims").await else { return };
    lists_and_claims(&store).await;
    // A second instance on the same database migrates nothing twice and
    // sees the same games.
    let other = Store::connect(&db.url, "test-b").await.unwrap();
    assert!(other.load_game("live1").await.unwrap().is_some());
    other.close().await;
    store.close().await;
}

fn account(id: &str, name: &str) -> AccountRow {
    AccountRow { id: id.into(), name: name.into(), password_hash: "hash".into(), created_at: 1_000 }
}

/// Accounts, their sessions, the seats they take, the ratings a rated
/// game's end updates in its own transaction, and deletion.
async fn accounts_and_ratings(store: &Store) {
    assert!(store.create_account(&account("a1", "Ann"), "ann").await.unwrap());
    assert!(!store.create_account(&account("a2", "ANN"), "ann").await.unwrap(), "one account per name key");
    assert!(store.create_account(&account("b1", "Bob"), "bob").await.unwrap());
    store.create_session("s1", "a1", 1_000, 5_000).await.unwrap();
    assert_eq!(store.session_account("s1", 4_999).await.unwrap().map(|a| a.name), Some("Ann".into()));
    assert!(store.session_account("s1", 5_000).await.unwrap().is_none(), "expired");

    // A guest's seat becomes Ann's.
    let mut game = new_game("r1", GameStatus::Active, None);
    game.rated = true;
    game.state.black = SeatRow { player: Player::Human, name: None, token_hash: Some("hash-b".into()), account: None };
    store.insert_game(&game).await.unwrap();
    assert_eq!(store.attach_seats(&account("b1", "Bob"), &["hash-b".into()]).await.unwrap(), ["r1"]);
    assert_eq!(store.attach_seats(&account("a1", "Ann"), &["hash-w".into()]).await.unwrap(), ["r1"]);
    let loaded = store.load_game("r1").await.unwrap().unwrap();
    assert_eq!((loaded.version, loaded.state.white.name.as_deref()), (3, Some("Ann")));

    // Ann wins after a move each: both ratings change with the result.
    let mut over = loaded.state.clone();
    over.ply = 2;
    over.status = GameStatus::Over;
    over.result = Some("1-0".into());
    over.winner = Some(Side::White);
    let moves = [mv(0, "a"), mv(1, "b")];
    let end = Update { state: &over, truncate_from: None, append: &moves, settles_ratings: true, creates: None };
    assert!(store.commit("r1", 3, &end).await.unwrap());
    let ratings = store.ratings("a1").await.unwrap();
    assert_eq!((ratings[0].kind.as_str(), ratings[0].games), ("salta", 1));
    assert!((ratings[0].rating.rating - 1662.31).abs() < 0.01, "{ratings:?}");
    assert!((store.ratings("b1").await.unwrap()[0].rating.rating - 1337.69).abs() < 0.01);
    let board: Vec<String> = store.leaderboard("salta", 10).await.unwrap().into_iter().map(|l| l.name).collect();
    assert_eq!(board, ["Ann", "Bob"]);
    assert_eq!(store.rating_history("a1").await.unwrap()[0].rating_before, 1500.0);
    assert_eq!(store.game_ratings("r1").await.unwrap().len(), 2);
    assert_eq!(store.account_games("a1", 10, 0).await.unwrap()[0].id, "r1");

    // A rated game ended before each side moved counts nothing.
    let mut short = new_game("r2", GameStatus::Active, None);
    short.rated = true;
    short.state.white.account = Some("a1".into());
    short.state.black.account = Some("b1".into());
    store.insert_game(&short).await.unwrap();
    let mut resigned = short.state.clone();
    resigned.status = GameStatus::Over;
    resigned.result = Some("0-1".into());
    resigned.winner = Some(Side::Black);
    let end = Update { state: &resigned, truncate_from: None, append: &[], settles_ratings: true, creates: None };
    assert!(store.commit("r2", 1, &end).await.unwrap());
    assert_eq!(store.ratings("a1").await.unwrap()[0].games, 1);

    // Ann goes; her games stay, without her name.
    assert_eq!(store.delete_account("a1").await.unwrap().len(), 2);
    assert!(store.account_by_name("ann").await.unwrap().is_none());
    let kept = store.load_game("r1").await.unwrap().unwrap();
    assert_eq!((kept.state.white.name, kept.state.white.account), (None, None));
    assert!(store.ratings("a1").await.unwrap().is_empty());
    assert_eq!(store.leaderboard("salta", 10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn sqlite_accounts_and_ratings() {
    let (store, _dir) = sqlite_store().await;
    accounts_and_ratings(&store).await;
}

#[tokio::test]
async fn postgres_accounts_and_ratings() {
    let Some((store, _db)) = postgres_store("postgres_accounts_and_ratings").await else { return };
    accounts_and_ratings(&store).await;
    store.close().await;
}

/// A game's moves committed one after another (as the server does: one
/// commit in flight per game) while many games play at once, so that the
/// group commit mixes them: every move lands, in its game's order.
async fn moves_keep_their_order_in_each_game(store: &Store) {
    const GAMES: usize = 24;
    const PLIES: i64 = 16;
    for i in 0..GAMES {
        store.insert_game(&new_game(&format!("ord{i}"), GameStatus::Active, None)).await.unwrap();
    }
    let players = (0..GAMES).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let id = format!("ord{i}");
            let mut state = new_game(&id, GameStatus::Active, None).state;
            for ply in 0..PLIES {
                state.ply = ply + 1;
                state.side_to_move = if ply % 2 == 0 { Side::Black } else { Side::White };
                let played = [mv(ply, &format!("g{i}p{ply}"))];
                let update = moves_only(&state, &played);
                assert!(store.commit(&id, ply + 1, &update).await.unwrap(), "{id}: ply {ply} applies");
            }
            (id, state)
        })
    });
    for player in players.collect::<Vec<_>>() {
        let (id, state) = player.await.unwrap();
        let stored = store.load_game(&id).await.unwrap().unwrap();
        assert_eq!((stored.version, &stored.state), (PLIES + 1, &state), "{id}");
        let i = id.trim_start_matches("ord");
        let expected: Vec<String> = (0..PLIES).map(|ply| format!("g{i}p{ply}")).collect();
        assert_eq!(stored.moves.iter().map(|m| m.notation.clone()).collect::<Vec<_>>(), expected, "{id}");
    }
}

/// The statements that make every insert of a move whose notation starts
/// with `bad` fail (as a full disk or a lost connection would fail a
/// commit), and those that end it.
fn failing_moves(url: &str) -> (&'static [&'static str], &'static [&'static str]) {
    if url.starts_with("postgres") {
        (
            &[
                "CREATE FUNCTION refuse_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                 IF NEW.notation LIKE 'bad%' THEN RAISE EXCEPTION 'refused on purpose'; END IF; RETURN NEW; END $$",
                "CREATE TRIGGER refuse_move BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION refuse_move()",
            ],
            &["DROP TRIGGER refuse_move ON moves", "DROP FUNCTION refuse_move()"],
        )
    } else {
        (
            &["CREATE TRIGGER refuse_move BEFORE INSERT ON moves WHEN NEW.notation LIKE 'bad%' \
               BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END"],
            &["DROP TRIGGER refuse_move"],
        )
    }
}

/// A commit that fails is answered with an error and changes nothing of
/// its game (no state without its move, no move without its state), and
/// the moves of other games committed at the same moment, in the same
/// batch, are not lost or answered wrongly because of it. When every
/// commit fails, none is acknowledged and nothing changes.
async fn failed_commits_change_nothing(store: &Store, url: &str) {
    const GAMES: usize = 30;
    let (refuse, allow) = failing_moves(url);
    for sql in refuse {
        raw_sql(url, sql).await;
    }
    for i in 0..GAMES {
        store.insert_game(&new_game(&format!("fail{i}"), GameStatus::Active, None)).await.unwrap();
    }
    let mut next = new_game("x", GameStatus::Active, None).state;
    next.ply = 1;
    next.side_to_move = Side::Black;
    let commit_all = |bad: fn(usize) -> bool| {
        let racing = (0..GAMES).map(|i| {
            let (store, next) = (store.clone(), next.clone());
            tokio::spawn(async move {
                let id = format!("fail{i}");
                let played = [mv(0, if bad(i) { "bad-move" } else { "c3-d4" })];
                let update = moves_only(&next, &played);
                (i, store.commit(&id, 1, &update).await)
            })
        });
        futures_util::future::join_all(racing.collect::<Vec<_>>())
    };
    let unchanged = async |i: usize| {
        let stored = store.load_game(&format!("fail{i}")).await.unwrap().unwrap();
        assert_eq!((stored.version, stored.moves.len(), stored.state.ply), (1, 0, 0), "fail{i} is unchanged");
    };

    // Every third game's move fails; the others go through.
    for done in commit_all(|i| i % 3 == 0).await {
        let (i, answer) = done.unwrap();
        if i % 3 == 0 {
            assert!(answer.is_err(), "fail{i}: a failed commit is not acknowledged: {answer:?}");
            unchanged(i).await;
        } else {
            assert!(answer.unwrap(), "fail{i}: commits beside a failed one");
            let stored = store.load_game(&format!("fail{i}")).await.unwrap().unwrap();
            assert_eq!((stored.version, stored.moves[0].notation.as_str()), (2, "c3-d4"), "fail{i}");
        }
    }
    // The games whose move failed: every commit fails.
    let remaining: Vec<usize> = (0..GAMES).filter(|i| i % 3 == 0).collect();
    let all_fail = remaining.iter().map(|&i| {
        let (store, next) = (store.clone(), next.clone());
        tokio::spawn(async move {
            let played = [mv(0, "bad-again")];
            let update = moves_only(&next, &played);
            store.commit(&format!("fail{i}"), 1, &update).await
        })
    });
    for (answer, &i) in futures_util::future::join_all(all_fail.collect::<Vec<_>>()).await.into_iter().zip(&remaining) {
        assert!(answer.unwrap().is_err(), "fail{i}: nothing acknowledged");
        unchanged(i).await;
    }
    // Once the failure is gone, the same commits go through.
    for sql in allow {
        raw_sql(url, sql).await;
    }
    for &i in &remaining {
        let played = [mv(0, "bad-but-allowed")];
        let update = moves_only(&next, &played);
        assert!(store.commit(&format!("fail{i}"), 1, &update).await.unwrap(), "fail{i} after the failure");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_moves_keep_their_order_in_each_game() {
    let (store, _dir) = sqlite_store().await;
    moves_keep_their_order_in_each_game(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_moves_keep_their_order_in_each_game() {
    let Some((store, _db)) = postgres_store("postgres_moves_keep_their_order_in_each_game").await else { return };
    moves_keep_their_order_in_each_game(&store).await;
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_failed_commits_change_nothing() {
    let (store, dir) = sqlite_store().await;
    let url = format!("sqlite:{}", dir.path.join("monte.db").display());
    failed_commits_change_nothing(&store, &url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_failed_commits_change_nothing() {
    let Some((store, db)) = postgres_store("postgres_failed_commits_change_nothing").await else { return };
    failed_commits_change_nothing(&store, &db.url).await;
    store.close().await;
}

/// `SynchronousCommit::Off` reaches the connections that commit moves (a
/// trigger writes the session's setting into the stored move), and is
/// refused on SQLite, whose durability is fixed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn synchronous_commit_off_is_a_postgres_setting() {
    let dir = tempdir::Dir::new();
    let path = dir.path.join("monte.db").to_string_lossy().into_owned();
    let refused = Store::connect_with(&path, "a", SynchronousCommit::Off).await;
    assert!(matches!(refused, Err(StoreError::SynchronousCommitOnSqlite)), "{refused:?}");

    if skip_postgres("synchronous_commit_off_is_a_postgres_setting") {
        return;
    }
    let db = TestDatabase::create().await;
    for setting in [SynchronousCommit::Off, SynchronousCommit::On] {
        let store = Store::connect_with(&db.url, "test-a", setting).await.unwrap();
        raw_sql(
            &db.url,
            "CREATE OR REPLACE FUNCTION tag_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             NEW.notation := NEW.notation || ' ' || current_setting('synchronous_commit'); RETURN NEW; END $$",
        )
        .await;
        raw_sql(
            &db.url,
            "CREATE OR REPLACE TRIGGER tag_move BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION tag_move()",
        )
        .await;
        let id = format!("sync{setting}");
        store.insert_game(&new_game(&id, GameStatus::Active, None)).await.unwrap();
        let mut next = new_game(&id, GameStatus::Active, None).state;
        next.ply = 1;
        let played = [mv(0, "c3-d4")];
        let update = moves_only(&next, &played);
        assert!(store.commit(&id, 1, &update).await.unwrap());
        let stored = store.load_game(&id).await.unwrap().unwrap();
        assert_eq!(stored.moves[0].notation, format!("c3-d4 {setting}"));
        store.close().await;
    }
}
