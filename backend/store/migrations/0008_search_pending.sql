-- 0008: an event's text reaches the FTS index in batches.
--
-- FTS5 writes the text of each transaction as a segment of its own and
-- merges segments as they pile up, so indexing every event in its own
-- commit cost more than the event (docs/BENCHMARKS.md). Now the
-- transaction that appends an event writes its search_docs row and a
-- search_pending row naming it, two small inserts, and the text goes into
-- search_text later, many events in one transaction (Store's indexer, and
-- every Search before it reads). Search reads the pending events' text
-- from their payloads, so an event is found from the commit that adds it:
-- a kill between an event and its text leaves the event pending, never
-- unindexed. Nothing to re-index: the FTS table is as it was.
CREATE TABLE search_pending (
    id INTEGER PRIMARY KEY -- a search_docs id whose text is not in search_text yet
) STRICT;

-- A deleted event's text goes from wherever it is.
DROP TRIGGER search_docs_delete;
CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs BEGIN
    DELETE FROM search_text WHERE rowid = old.id
        AND NOT EXISTS (SELECT 1 FROM search_pending WHERE id = old.id);
    DELETE FROM search_pending WHERE id = old.id;
END;
