// GET /v1/checkouts/client/{client_secret}/stream: the session's status as server-sent events, for
// the checkout page. Each message is Polar's checkout event shape, {"id", "key": "checkout.updated",
// "payload": {"status"}}: the status on connect, then every change (open → confirmed → succeeded,
// back to open after a failed payment, expired). Every status change records checkout.updated in
// the outbox, whose NOTIFY reaches every instance; the stream reads the announced events and passes
// their statuses on, so no transition is skipped however fast they follow each other.
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import type { Db } from "../../../db/client.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import type { NotificationHub } from "../webhooks/notifications.ts";
import { committedEvents } from "../webhooks/service.ts";
import { holdStream, startEventStream, type StreamRegistry } from "../webhooks/stream.ts";
import * as repo from "./repository.ts";

export interface StatusStreamDeps {
  db: Db;
  hub: NotificationHub;
  streams: StreamRegistry;
}

type Status = repo.CheckoutRow["status"];

const STATUS_EVENTS = ["checkout.updated", "checkout.expired"];

/** Streams the status of a session already found by its secret (unknown or expired: answered before). */
export function streamStatus(
  deps: StatusStreamDeps,
  req: Request,
  res: Response,
  row: repo.CheckoutRow,
): void {
  startEventStream(res);
  res.write("retry: 1000\n\n");
  let last: Status | null = null;
  const send = (status: Status) => {
    if (status === last || stream.closed) return;
    last = status;
    res.write(
      `data: ${JSON.stringify({ id: randomUUID(), key: "checkout.updated", payload: { status } })}\n\n`,
    );
  };

  // Announcements are handled one at a time, in the order they came (commit order).
  let queue = Promise.resolve();
  const enqueue = (work: () => Promise<void>) => {
    queue = queue
      .then(work)
      .catch((err: unknown) =>
        req.log.error({ err, checkoutId: row.id }, "checkout status stream read failed"),
      );
  };
  const reread = async () => {
    const current = await repo.statusOf(deps.db, scopeOfResource(row), row.id);
    if (current) send(current);
  };
  const unsubscribe = deps.hub.subscribe((n) => {
    if (stream.closed) return;
    if (n.kind === "resync") enqueue(reread);
    if (n.kind !== "event" || n.organizationId !== row.organizationId) return;
    enqueue(async () => {
      for (const event of await committedEvents(deps.db, n.organizationId, STATUS_EVENTS, n)) {
        const data = event.data as { id?: string; status?: Status } | undefined;
        if (data?.id === row.id && data.status) send(data.status);
      }
    });
  });
  const stream = holdStream(req, res, deps.streams, unsubscribe);
  // Subscribed first, then read: a change committed meanwhile is either in this read or announced.
  enqueue(reread);
}
