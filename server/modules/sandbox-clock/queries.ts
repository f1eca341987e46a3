// The clock an organization's billing work runs on: the process clock plus the organization's
// sandbox offset (zero in production, where the offset is never set).
import type { Db } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf } from "./repository.ts";

/** Callers pass the organization of a row they read under its scope: that organization is the scope. */
function ownOffset(db: Db, organizationId: string): Promise<number> {
  return offsetOf(db, scopeOfResource({ organizationId }), organizationId);
}

export function offsetClock(base: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return base;
  return { now: () => new Date(base.now().getTime() + offsetMs) };
}

export async function organizationClock(
  db: Db,
  base: Clock,
  organizationId: string,
): Promise<Clock> {
  return offsetClock(base, await ownOffset(db, organizationId));
}

/** A clock stopped at one instant: work due at that instant is done as of then. */
export function fixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}

export function offsetOfOrganization(db: Db, organizationId: string): Promise<number> {
  return ownOffset(db, organizationId);
}
