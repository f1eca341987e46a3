// Downloads of a downloadables grant: short-lived signed URLs (HMAC over grant, file and expiry with
// the server secret), and serving the file's bytes from the files module's storage while the grant
// is granted and lists the file. The URL is the credential, so the customer's browser needs no
// session; it stops working at its expiry or when the grant is revoked.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { AuthContext } from "../../lib/auth-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { filesByIds, fileReadOut, openDownloadable, type FileDeps } from "../files/service.ts";
import { getGrant, grantById } from "./service.ts";

export interface DownloadDeps {
  files: FileDeps;
  ttlSeconds: number;
}

function signature(secret: string, grantId: string, fileId: string, expires: string): string {
  return createHmac("sha256", `till-download:${secret}`).update(`${grantId}/${fileId}/${expires}`).digest("base64url");
}

/** GET /v1/benefit-grants/{id}/downloadables: Polar's DownloadableRead items with fresh URLs. */
export async function listDownloadables(deps: DownloadDeps, ctx: AuthContext, grantId: string) {
  const grant = await getGrant(deps.files, ctx, grantId);
  if (!grant.grantedAt) return { items: [] };
  const ids = (grant.properties.files as string[] | undefined) ?? [];
  const files = new Map((await filesByIds(deps.files.db, ids)).map((f) => [f.id, f]));
  const expiresAt = new Date(deps.files.clock.now().getTime() + deps.ttlSeconds * 1000);
  const expires = String(Math.floor(expiresAt.getTime() / 1000));
  const items = ids.flatMap((id) => {
    const file = files.get(id);
    if (!file?.isUploaded) return [];
    const url = `${deps.files.baseUrl}/v1/downloads/${grant.id}/${file.id}?expires=${expires}&signature=${signature(deps.files.secret, grant.id, file.id, expires)}`;
    return [{ id: `${grant.id}:${file.id}`, benefit_id: grant.benefitId, file: { ...fileReadOut(deps.files.baseUrl, file), download: { url, headers: {}, expires_at: new Date(Number(expires) * 1000).toISOString() } } }];
  });
  return { items };
}

/** The bytes behind a signed URL; any failed check is the same 404, so a URL reveals nothing. */
export async function openDownload(deps: DownloadDeps, grantId: string, fileId: string, query: { expires?: unknown; signature?: unknown }) {
  const notFound = new ResourceNotFound("Download not found or expired.");
  const { expires, signature: given } = query;
  if (typeof expires !== "string" || typeof given !== "string" || !/^\d{1,12}$/.test(expires)) throw notFound;
  const expected = Buffer.from(signature(deps.files.secret, grantId, fileId, expires));
  const got = Buffer.from(given);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) throw notFound;
  if (Number(expires) * 1000 <= deps.files.clock.now().getTime()) throw notFound;
  // The signature already proves till issued this URL for this grant; no tenant check applies.
  const grant = await grantById(deps.files.db, grantId);
  if (!grant?.grantedAt || !((grant.properties.files as string[] | undefined) ?? []).includes(fileId)) throw notFound;
  const file = await openDownloadable(deps.files, fileId);
  if (!file) throw notFound;
  return file;
}
