// Signs a webhook delivery the way till sends it (see the contract's PATHS.md): two signatures in
// `webhook-signature`, one keyed by the base64-decoded secret (Standard Webhooks) and one keyed by
// the UTF-8 bytes of the whole secret string (what @polar-sh/sdk's validateEvent checks).
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function signDelivery(
  secret: string,
  body: string,
  at = new Date(),
  id = `msg_${randomBytes(8).toString("hex")}`,
) {
  const standard = new Webhook(secret).sign(id, at, body);
  const polar = new Webhook(Buffer.from(secret, "utf8").toString("base64")).sign(id, at, body);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": `${standard} ${polar}`,
  };
}
