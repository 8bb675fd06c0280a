-- Who said what a memory came from (the message author's display name): embedded and keyword-indexed
-- with the content, because people ask by name ("What did Caroline say about ...?").
ALTER TABLE memories ADD COLUMN speaker text;
