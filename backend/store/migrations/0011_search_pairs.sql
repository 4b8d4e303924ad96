-- 0011: an index of word pairs, so that a phrase of common words is found
-- without checking the trigrams of every event that holds them.
--
-- Each event's text is also indexed as the pairs of words in a row (the end
-- of one word and the start of the next, hashed into a token: see
-- search_pairs.go). A query of several words is looked up here first, as a
-- phrase of its pairs, and the trigram index then checks only the events
-- that hold them. The table is contentless, like search_text, and has the
-- same rowids (search_docs ids); it gets an event's pairs in the
-- transaction that gives search_text its text.
CREATE VIRTUAL TABLE search_pairs USING fts5(
    pairs,
    content = '',
    contentless_delete = 1,
    tokenize = 'ascii'
);

-- The events indexed before this migration, whose pairs are still to write:
-- search_docs ids lo to hi (every id up to search_indexed.upto has its text
-- already; those above get their pairs with their text). The app writes
-- them in the background, the newest first, lowering hi
-- (Store.IndexBacklog); until the row is gone, search finds phrases with
-- the trigram index alone, as before, so results are whole meanwhile.
CREATE TABLE search_pairs_backlog (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    lo  INTEGER NOT NULL,
    hi  INTEGER NOT NULL
) STRICT;

INSERT INTO search_pairs_backlog (one, lo, hi)
    SELECT 1, min(id), (SELECT upto FROM search_indexed) FROM search_docs
    WHERE id <= (SELECT upto FROM search_indexed)
    HAVING count(*) > 0;

-- A deleted event's pairs go with its text.
DROP TRIGGER search_docs_delete;
CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs
WHEN old.id <= (SELECT upto FROM search_indexed)
BEGIN
    DELETE FROM search_text WHERE rowid = old.id;
    DELETE FROM search_pairs WHERE rowid = old.id;
END;
