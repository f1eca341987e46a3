// Wire schemas for organization access tokens (Polar's OrganizationAccessToken*).
import { z } from "zod";
import { scopeSchema } from "../../lib/scopes.ts";
import type { TokenRow } from "./repository.ts";

// ISO 8601 durations as pydantic's timedelta reads them ("P30D", "PT12H", "P1W") or plain seconds.
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function parseDuration(value: string): number | null {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const m = DURATION.exec(value);
  if (!m || value === "P" || value.endsWith("T")) return null;
  const [, w, d, h, min, s] = m.map((x) => Number(x ?? 0));
  return ((((w! * 7 + d!) * 24 + h!) * 60 + min!) * 60 + s!) * 1000;
}

const expiresIn = z.string().refine((v) => {
  const ms = parseDuration(v);
  return ms !== null && ms > 0 && ms <= 3650 * 86_400_000;
}, "must be an ISO 8601 duration such as P30D or PT12H, or a number of seconds, up to ten years");

export const tokenCreate = z.object({
  organization_id: z.uuid().nullish(),
  comment: z.string().min(1).max(200),
  expires_in: expiresIn.nullish(),
  scopes: z.array(scopeSchema).min(1),
});

export const tokenUpdate = z.object({
  comment: z.string().min(1).max(200).nullish(),
  scopes: z.array(scopeSchema).min(1).nullish(),
});

export const tokenListQuery = z.object({
  organization_id: z.union([z.uuid(), z.array(z.uuid())]).optional(),
});

export function tokenOut(row: TokenRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    scopes: row.scopes,
    expires_at: row.expiresAt?.toISOString() ?? null,
    comment: row.comment,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    organization_id: row.organizationId,
  };
}
