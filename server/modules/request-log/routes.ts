// GET /v1/cli/logs/{organization_id}: the organization's API requests as server-sent events, as
// they finish, for `till logs tail`: a member's own session only, as `till listen`. Neither an
// organization token nor an OAuth app, whatever its scopes, follows every request of the
// organization.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import { assertAccessible, authOf, type Guard, sessionUserOf } from "../../lib/auth-context.ts";
import { parseParams } from "../../lib/validation.ts";
import { holdStream, startEventStream, type StreamRegistry } from "../webhooks/stream.ts";
import type { RequestLogHub } from "./hub.ts";

const params = z.object({ organization_id: z.uuid() });

export function requestLogRouter(
  deps: { hub: RequestLogHub; streams: StreamRegistry },
  guard: Guard,
): Router {
  const r = apiRouter();
  r.get("/cli/logs/:organization_id", guard(), (req, res) => {
    const { organization_id: organizationId } = parseParams(params, req);
    const ctx = authOf(req);
    sessionUserOf(ctx, "The live request log is for a signed-in user.");
    assertAccessible(ctx, organizationId, "Organization not found.");
    startEventStream(res);
    res.write(`retry: 1000\ndata: ${JSON.stringify({ key: "connected" })}\n\n`);
    const unsubscribe = deps.hub.subscribe(organizationId, (entry) => {
      const { organization_ids: _, ...line } = entry;
      res.write(`data: ${JSON.stringify(line)}\n\n`);
    });
    holdStream(req, res, deps.streams, unsubscribe);
  });
  return r;
}
