// Signed, short-lived upload URLs for the parts of a file: PUT /storage/uploads/:id/:number with
// ?expires=<unix seconds>&signature=<HMAC>. The signature binds file, part and expiry, so the URL
// is the only credential the uploader needs (as with S3 presigned URLs).
import { createHmac, timingSafeEqual } from "node:crypto";

function sign(secret: string, fileId: string, number: number, expires: number): string {
  return createHmac("sha256", secret)
    .update(`till-file-upload:${fileId}:${number}:${expires}`)
    .digest("base64url");
}

export function uploadUrl(
  baseUrl: string,
  secret: string,
  fileId: string,
  number: number,
  expiresAt: Date,
): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${baseUrl}/storage/uploads/${fileId}/${number}?expires=${expires}&signature=${sign(secret, fileId, number, expires)}`;
}

export function verifyUploadUrl(
  secret: string,
  fileId: string,
  number: number,
  expires: string,
  signature: string,
  now: Date,
): boolean {
  if (!/^\d{1,12}$/.test(expires)) return false;
  const expected = Buffer.from(sign(secret, fileId, number, Number(expires)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  return Number(expires) * 1000 > now.getTime();
}
