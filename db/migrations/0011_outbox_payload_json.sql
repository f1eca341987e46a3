-- The outbox payload is written once and read back whole, never queried inside: json keeps the text
-- as rendered (no jsonb parse and rebuild on insert, no jsonb output on read, the API's key order).
ALTER TABLE "webhook_events" ALTER COLUMN "payload" SET DATA TYPE json USING "payload"::json;
--> statement-breakpoint
-- A payload (~4 KB for a checkout) is compressed on insert; lz4 costs a fraction of pglz's CPU.
-- Servers built without lz4 (PGlite among them) keep the default.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE "webhook_events" ALTER COLUMN "payload" SET COMPRESSION lz4;
  END IF;
END
$$;
