-- An endpoint event keeps the exact bytes it sends (a few KB each, one row per event and endpoint),
-- compressed on insert like the outbox's payload (0011): lz4 where the server has it, which costs
-- a fraction of pglz's CPU. Servers built without lz4 (PGlite among them) keep the default.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE "webhook_endpoint_events" ALTER COLUMN "payload" SET COMPRESSION lz4;
  END IF;
END
$$;
