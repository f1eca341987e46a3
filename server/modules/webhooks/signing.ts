// Standard Webhooks signing. One delivery carries two signatures in `webhook-signature`, so both
// receiver libraries accept the same request: the Standard Webhooks key (the base64-decoded secret)
// and the key `@polar-sh/sdk`'s validateEvent derives (the UTF-8 bytes of the whole `whsec_` string).
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

export interface SigningKeys {
  standard: Buffer;
  polar: Buffer;
}

export function signingKeys(secret: string): SigningKeys {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return { standard: Buffer.from(encoded, "base64"), polar: Buffer.from(secret, "utf8") };
}

/** The `webhook-signature` value for one message: `v1,<standard> v1,<polar>`. */
export function signatureHeader(
  keys: SigningKeys,
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  const content = `${msgId}.${timestampSeconds}.${body}`;
  const a = createHmac("sha256", keys.standard).update(content).digest("base64");
  const b = createHmac("sha256", keys.polar).update(content).digest("base64");
  return `v1,${a} v1,${b}`;
}

/** The three headers of a signed delivery, besides content-type. */
export function signedHeaders(
  keys: SigningKeys,
  msgId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatureHeader(keys, msgId, timestampSeconds, body),
  };
}
