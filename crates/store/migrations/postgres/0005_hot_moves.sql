-- A move's update of its game is a HOT update (heap-only tuple): the new
-- version of the row goes on the same page and no index gets an entry,
-- as long as no indexed column changes and the page has room. Every move
-- changes updated_at, so an index holding it made every move write an
-- entry into each of the table's indexes, and left dead rows and index
-- entries for vacuum (docs/server-load.md#the-write-path).
--
-- The lists that order by updated_at (open games, live games) find their
-- games through status alone and sort the few found.
DROP INDEX games_status;
CREATE INDEX games_status ON games (status);
-- Room on each page for the next versions of its rows. Applies to the
-- pages filled from now on.
ALTER TABLE games SET (fillfactor = 80);
