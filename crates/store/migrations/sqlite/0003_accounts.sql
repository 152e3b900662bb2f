-- Players' accounts, their sessions and their ratings (docs/api.md#accounts).
CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    -- The name case-folded: one account per name whatever its case.
    name_key TEXT NOT NULL UNIQUE,
    -- Argon2id, in the PHC string format.
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- A signed-in browser: the SHA-256 of its cookie's secret.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);

-- Glicko-2, one rating per account and game.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    games INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, kind)
);
CREATE INDEX ratings_board ON ratings (kind, rating);

-- Each rated game's change of a player's rating.
CREATE TABLE rating_history (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    rating_before REAL NOT NULL,
    rating REAL NOT NULL,
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    PRIMARY KEY (account_id, game_id)
);
CREATE INDEX rating_history_game ON rating_history (game_id);

-- The account holding each seat (none for guests and the AI), and whether
-- the game counts for the ratings (chosen at creation).
ALTER TABLE games ADD COLUMN white_account TEXT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE games ADD COLUMN black_account TEXT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
CREATE INDEX games_white_account ON games (white_account, created_at);
CREATE INDEX games_black_account ON games (black_account, created_at);
