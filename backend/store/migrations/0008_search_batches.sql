-- 0008: an event's text reaches the FTS index in batches.
--
-- FTS5 writes the text of each transaction as a segment of its own and
-- merges segments as they pile up, so indexing every event in its own
-- commit cost more than the event (docs/BENCHMARKS.md). Now the
-- transaction that appends an event writes only its search_docs row, and
-- the text goes into search_text later, many events in one transaction
-- (Store's indexer, and every Search before it reads). The events whose
-- text is not there yet are those whose search_docs id is above
-- search_indexed.upto (appended events get ever higher ids; those indexed
-- from the backlog, below 0, get their text at once). Search reads the
-- pending events' text from their payloads, so an event is found from the
-- commit that adds it: a kill between an event and its text leaves the
-- event pending, never unindexed. Nothing to re-index: the FTS table is as
-- it was.
CREATE TABLE search_indexed (
    one  INTEGER PRIMARY KEY CHECK (one = 1),
    upto INTEGER NOT NULL -- every search_docs id up to this one has its text in search_text
) STRICT;

INSERT INTO search_indexed (one, upto) SELECT 1, coalesce(max(id), 0) FROM search_docs;

-- A deleted event's text goes from the FTS table if it is there.
DROP TRIGGER search_docs_delete;
CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs
WHEN old.id <= (SELECT upto FROM search_indexed)
BEGIN
    DELETE FROM search_text WHERE rowid = old.id;
END;
