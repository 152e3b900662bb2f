-- Games and their moves. Times are milliseconds since the Unix epoch.
-- Released migrations are never edited: add a new file instead.
CREATE TABLE games (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    clock_initial_ms INTEGER,
    clock_increment_ms INTEGER,
    created_at INTEGER NOT NULL,
    -- Bumped by every change: compare-and-swap guard of all writes.
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    ply INTEGER NOT NULL,
    fen TEXT NOT NULL,
    side_to_move TEXT NOT NULL,
    white_player TEXT NOT NULL,
    white_name TEXT,
    white_token TEXT,
    black_player TEXT NOT NULL,
    black_name TEXT,
    black_token TEXT,
    invite TEXT UNIQUE,
    white_ms INTEGER,
    black_ms INTEGER,
    turn_started_at INTEGER,
    deadline_at INTEGER,
    draw_offer TEXT,
    result TEXT,
    winner TEXT,
    reason TEXT,
    margin INTEGER,
    ai_to_move INTEGER NOT NULL DEFAULT 0,
    ai_claimed_by TEXT,
    ai_claimed_at INTEGER,
    updated_at INTEGER NOT NULL
);
CREATE INDEX games_status ON games (status, updated_at);
CREATE INDEX games_white_token ON games (white_token);
CREATE INDEX games_black_token ON games (black_token);
CREATE INDEX games_ai_to_move ON games (ai_to_move) WHERE ai_to_move = 1;
CREATE INDEX games_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL;

CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,
    notation TEXT NOT NULL,
    played_at INTEGER NOT NULL,
    white_ms INTEGER,
    black_ms INTEGER,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

-- When the service (any instance) was last seen alive: the clocks are not
-- charged for the time it was down.
CREATE TABLE service (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    heartbeat_at INTEGER NOT NULL
);
