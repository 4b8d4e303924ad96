-- 0004: which tools a session offers its model.
--
-- A JSON array of tool names, in the tool registry's order; NULL offers
-- every built-in tool (what sessions did before, and the default). A small
-- model can be offered fewer tools, whose schemas then take less of its
-- context.
ALTER TABLE sessions ADD COLUMN offered_tools TEXT;
