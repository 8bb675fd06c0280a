-- Consolidation (agents/core/consolidation.py): when a memory stopped being served (superseded,
-- merged, compressed into a pattern, pruned, expired, archived by the cap), so that `as_of` reads see
-- the memory as it was then; and the wall-clock time at which a contact's next due work comes due
-- (its event time runs clock_skew_s behind the wall clock), for the scheduler.
ALTER TABLE memories ADD COLUMN retired_at timestamptz;
ALTER TABLE contacts ADD COLUMN clock_skew_s double precision NOT NULL DEFAULT 0;
ALTER TABLE contacts ADD COLUMN next_due_wall timestamptz;
CREATE INDEX contacts_next_due_wall ON contacts (next_due_wall) WHERE next_due_wall IS NOT NULL;
