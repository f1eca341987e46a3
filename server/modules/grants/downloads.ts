// Downloads of a downloadables grant: short-lived signed URLs (HMAC over grant, file and expiry with
// the server secret), and serving the file's bytes from the files module's storage while the grant
// is granted and lists the file. The URL is the credential, so the customer's browser needs no
// session; it stops working at its expiry or when the grant is revoked.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { AuthContext } from "../../lib/auth-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { benefitRowsByIds } from "../benefits/service.ts";
import { fileDownloadOut } from "../files/schemas.ts";
import { filesByIds, fileReadOut, openDownloadable, type FileDeps } from "../files/service.ts";
import * as repo from "./repository.ts";
import type { DownloadableOut } from "./schemas.ts";
import { getGrant, grantForSignedUrl } from "./service.ts";

export interface DownloadDeps {
  files: FileDeps;
  ttlSeconds: number;
}

function signature(secret: string, grantId: string, fileId: string, expires: string): string {
  return createHmac("sha256", `till-download:${secret}`)
    .update(`${grantId}/${fileId}/${expires}`)
    .digest("base64url");
}

/** A stable UUID for one file of one grant (Polar's DownloadableRead.id is a UUID): UUIDv8 from a hash. */
function downloadableId(grantId: string, fileId: string): string {
  const h = createHash("sha256").update(`${grantId}/${fileId}`).digest("hex");
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Polar's DownloadableRead for every uploaded file the granted grants list, each with a fresh signed URL. */
async function downloadablesOf(
  deps: DownloadDeps,
  grants: repo.GrantRow[],
): Promise<DownloadableOut[]> {
  const granted = grants.filter((g) => g.grantedAt);
  const fileIdsOf = (g: repo.GrantRow) => (g.properties.files as string[] | undefined) ?? [];
  const files = new Map(
    (
      await filesByIds(deps.files.db, scopeOfResource(...granted), [
        ...new Set(granted.flatMap(fileIdsOf)),
      ])
    ).map((f) => [f.id, f]),
  );
  const expiresAt = new Date(deps.files.clock.now().getTime() + deps.ttlSeconds * 1000);
  const expires = String(Math.floor(expiresAt.getTime() / 1000));
  return granted.flatMap((grant) =>
    fileIdsOf(grant).flatMap((id) => {
      const file = files.get(id);
      if (!file?.isUploaded) return [];
      const url = `${deps.files.baseUrl}/v1/downloads/${grant.id}/${file.id}?expires=${expires}&signature=${signature(deps.files.secret, grant.id, file.id, expires)}`;
      const download = {
        url,
        headers: {},
        expires_at: new Date(Number(expires) * 1000).toISOString(),
      };
      return [
        {
          id: downloadableId(grant.id, file.id),
          benefit_id: grant.benefitId,
          file: fileDownloadOut(file, download),
        },
      ];
    }),
  );
}

/** GET /v1/benefit-grants/{id}/downloadables: Polar's DownloadableRead items with fresh URLs. */
export async function listDownloadables(deps: DownloadDeps, ctx: AuthContext, grantId: string) {
  return { items: await downloadablesOf(deps, [await getGrant(deps.files, ctx, grantId)]) };
}

/**
 * GET /v1/customer-portal/downloadables/: the files of the customer's granted downloadables
 * benefits. A customer holds a handful, so the page is cut from the whole list.
 */
export async function listDownloadablesOfCustomer(
  deps: DownloadDeps,
  customer: { organizationId: string; customerId: string },
  q: { benefit_id?: string[] | undefined },
  page: Pagination,
) {
  const held = (
    await repo.grantedOfCustomer(deps.files.db, scopeOfResource(customer), customer.customerId)
  ).filter((g) => !q.benefit_id?.length || q.benefit_id.includes(g.benefitId));
  const downloadables = new Set(
    (
      await benefitRowsByIds(deps.files.db, scopeOfResource(...held), [
        ...new Set(held.map((g) => g.benefitId)),
      ])
    )
      .filter((b) => b.type === "downloadables")
      .map((b) => b.id),
  );
  const grants = held.filter((g) => downloadables.has(g.benefitId));
  const all = await downloadablesOf(deps, grants);
  return pageOf(all.slice(offsetOf(page), offsetOf(page) + page.limit), all.length, page);
}

/** The bytes behind a signed URL; any failed check is the same 404, so a URL reveals nothing. */
export async function openDownload(
  deps: DownloadDeps,
  grantId: string,
  fileId: string,
  query: { expires?: unknown; signature?: unknown },
) {
  const notFound = new ResourceNotFound("Download not found or expired.");
  const { expires, signature: given } = query;
  if (typeof expires !== "string" || typeof given !== "string" || !/^\d{1,12}$/.test(expires))
    throw notFound;
  const expected = Buffer.from(signature(deps.files.secret, grantId, fileId, expires));
  const got = Buffer.from(given);
  if (expected.length !== got.length || !timingSafeEqual(expected, got)) throw notFound;
  if (Number(expires) * 1000 <= deps.files.clock.now().getTime()) throw notFound;
  // The signature already proves till issued this URL for this grant; no tenant check applies.
  const grant = await grantForSignedUrl(deps.files.db, grantId);
  if (
    !grant?.grantedAt ||
    !((grant.properties.files as string[] | undefined) ?? []).includes(fileId)
  )
    throw notFound;
  const file = await openDownloadable(deps.files, fileId);
  if (!file) throw notFound;
  await repo.recordDownload(deps.files.db, {
    organizationId: grant.organizationId,
    customerId: grant.customerId,
    benefitId: grant.benefitId,
    grantId: grant.id,
    fileId,
  });
  return file;
}

/**
 * GET /v1/benefits/{id}/files: a downloadables benefit's files, in the benefit's order, each with
 * how often and by how many customers it was downloaded. Other benefit types have no files.
 */
export async function listBenefitFiles(
  deps: DownloadDeps,
  ctx: AuthContext,
  benefitId: string,
  page: Pagination,
) {
  const [benefit] = await benefitRowsByIds(deps.files.db, scopeOfCaller(ctx), [benefitId]);
  if (!benefit || benefit.deletedAt) throw new ResourceNotFound("Benefit not found.");
  const ids =
    benefit.type === "downloadables"
      ? ((benefit.properties as { files?: string[] }).files ?? [])
      : [];
  const [files, stats] = await Promise.all([
    filesByIds(deps.files.db, scopeOfResource(benefit), ids),
    repo.downloadStats(deps.files.db, scopeOfResource(benefit), benefitId),
  ]);
  const byId = new Map(files.map((f) => [f.id, f]));
  const all = ids.flatMap((id) => {
    const f = byId.get(id);
    if (!f) return [];
    const s = stats.get(id) ?? { downloads: 0, downloaders: 0 };
    return [{ ...fileReadOut(deps.files.baseUrl, f), ...s }];
  });
  return pageOf(all.slice(offsetOf(page), offsetOf(page) + page.limit), all.length, page);
}
