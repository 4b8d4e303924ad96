-- 0008 is the search index's next migration, on a branch of its own; this
-- file holds its number so that the numbers stay dense until that one
-- replaces it. It changes nothing.
SELECT 1;
