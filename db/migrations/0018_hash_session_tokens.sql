-- Session tokens and verification identifiers are stored as hashes from now on (the server hashes
-- before every lookup); existing rows are hashed the same way so signed-in users stay signed in and
-- mailed links keep working: sessions as 'h1:' || base64url(sha256(token)), verification
-- identifiers as base64url(sha256(identifier)), both without padding.
UPDATE "session"
SET "token" = 'h1:' || translate(rtrim(encode(sha256(convert_to("token", 'UTF8')), 'base64'), '='), '+/', '-_')
WHERE "token" NOT LIKE 'h1:%';--> statement-breakpoint
UPDATE "verification"
SET "identifier" = translate(rtrim(encode(sha256(convert_to("identifier", 'UTF8')), 'base64'), '='), '+/', '-_')
WHERE "identifier" !~ '^[A-Za-z0-9_-]{43}$';
