// An endpoint whose most recent completed events all failed is disabled, its pending events are
// skipped, and the organization's members are told by email how to turn it back on.
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/logger.ts";
import type { Mailer } from "../email/mailer.ts";
import * as repo from "./delivery-repository.ts";
import type { EndpointRow } from "./repository.ts";

export interface DisableDeps {
  db: Db;
  config: Readonly<Config>;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
}

export async function disableIfFailing(deps: DisableDeps, endpointId: string): Promise<void> {
  const { db, clock, config, log } = deps;
  try {
    if (!(await repo.lastCompletedAllFailed(db, endpointId, config.webhooks.disableAfterFailures)))
      return;
    const disabledAt = clock.now();
    const endpoint = await inTransaction(db, (tx) =>
      repo.disableEndpoint(tx, endpointId, disabledAt),
    );
    if (!endpoint) return;
    log.warn(
      { endpointId, url: endpoint.url },
      "webhook endpoint disabled after repeated failures",
    );
    await mailMembersOfDisabled(deps, endpoint, disabledAt);
  } catch (err) {
    log.error({ err, endpointId }, "checking a failing webhook endpoint failed");
  }
}

/**
 * Tells each member of the endpoint's organization that it was disabled. Each mail is keyed by the
 * endpoint, the time it was disabled and the member, so a check run again for the same disabling
 * mails no one twice, while a later disabling (after a re-enable) is mailed anew.
 */
export async function mailMembersOfDisabled(
  deps: Pick<DisableDeps, "db" | "config" | "mailer">,
  endpoint: EndpointRow,
  disabledAt: Date,
): Promise<void> {
  const { db, config, mailer } = deps;
  for (const to of await repo.memberEmails(db, endpoint.organizationId)) {
    await mailer.send({
      kind: "webhook_endpoint_disabled",
      key: `webhook_endpoint_disabled:${endpoint.id}:${disabledAt.toISOString()}:${to.toLowerCase()}`,
      to,
      subject: "A webhook endpoint was disabled",
      text:
        `The webhook endpoint ${endpoint.name ?? endpoint.url} (${endpoint.url}) was disabled because its ` +
        `${config.webhooks.disableAfterFailures} most recent events all failed to be delivered. Pending events were skipped.\n` +
        `Fix the endpoint, then re-enable it with PATCH /v1/webhooks/endpoints/${endpoint.id} {"enabled": true}.`,
    });
  }
}
