-- Who said a memory, by the first word of their display name, lower-cased (issue 23): /context asks
-- whether a question names one of the contact's speakers ("What does Melanie do to destress?") with one
-- probe of this index per word of the question (projections/store.py, contact_entities_speakers), not
-- by reading the speaker of each of the contact's memories (~1.3 ms for 1,100 of them).
CREATE INDEX memories_speaker_first ON memories (tenant_id, contact_id, (lower(split_part(speaker, ' ', 1))));
