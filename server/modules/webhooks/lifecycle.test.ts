// Endpoint lifecycle under failure and age: disabled after its 10 most recent completed events all
// failed (pending ones skipped, members emailed once), re-enabled by PATCH; payloads archived after
// the retention period by the daily job.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inTransaction } from "../../../db/client.ts";
import { webhookEndpoints } from "../../../db/schema/index.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../../../test/helpers/webhook-receiver.ts";
import { systemClock } from "../../lib/clock.ts";
import { createMailer } from "../email/mailer.ts";
import { mailMembersOfDisabled } from "./disable.ts";
import { ARCHIVE_JOB } from "./job-names.ts";
import { recordEvent } from "./outbox.ts";

let t: TestServer;
let receiver: Receiver;
const secrets = new Map<string, string>();
let mode: "fail" | "ok" = "fail";

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_MAX_ATTEMPTS: "1", WEBHOOK_TIMEOUT_MS: "2000" } });
  receiver = await startReceiver({
    secretFor: (p) => secrets.get(p),
    // The first ten fail at once; the eleventh hangs, so it is still pending when the endpoint is disabled.
    respond: (_r, n) => (mode === "ok" ? 200 : n <= 10 ? 500 : -1),
  });
});
afterAll(async () => {
  await t.stop();
  await receiver.close();
});

const emit = (organizationId: string, type: string, data: unknown) =>
  inTransaction(t.server.database.db, (tx) =>
    recordEvent(tx, systemClock, { organizationId, type, data }),
  );

describe("endpoint lifecycle", () => {
  it("disables an endpoint whose 10 most recent completed events failed, skips its pending events, emails the members; PATCH re-enables it", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    const created = await api(t.url, "/v1/webhooks/endpoints", {
      token: seller.token,
      body: { url: `${receiver.url}/failing`, format: "raw", events: ["order.paid"] },
    });
    secrets.set("/failing", created.body.secret);
    for (let i = 0; i < 11; i++) await emit(seller.organization.id, "order.paid", { n: i });
    const endpoint = () =>
      api(t.url, `/v1/webhooks/endpoints/${created.body.id}`, { token: seller.token });
    await waitFor(
      async () => (await endpoint()).body.enabled === false,
      20_000,
      "endpoint disabled",
    );
    const statuses = async () =>
      t.server.database.rows<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from webhook_endpoint_events where endpoint_id = ${created.body.id} group by status order by status`,
      );
    // The hanging 11th attempt times out after it was skipped: it stays skipped and is not retried.
    await waitFor(
      async () => (await statuses()).some((s) => s.status === "skipped"),
      10_000,
      "pending event skipped",
    );
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await statuses()).toEqual([
      { status: "failed", n: 10 },
      { status: "skipped", n: 1 },
    ]);
    const mails = await t.server.database.rows<{ to: string; subject: string; text: string }>(
      sql`select "to", subject, text from email_outbox where kind = 'webhook_endpoint_disabled'`,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toBe(seller.user.email);
    expect(mails[0]!.text).toContain(`/v1/webhooks/endpoints/${created.body.id}`);

    // The same disabling mailed again (a check run again after a crash) reaches no member twice.
    const [row] = await t.server.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.body.id));
    const mailer = await createMailer({
      config: t.config,
      db: t.server.database.db,
      log: t.server.log,
    });
    await mailMembersOfDisabled(
      { db: t.server.database.db, config: t.config, mailer },
      row!,
      row!.modifiedAt!,
    );
    expect(
      await t.server.database.rows(
        sql`select 1 from email_outbox where kind = 'webhook_endpoint_disabled'`,
      ),
    ).toHaveLength(1);

    // While disabled, new events are not owed to it.
    const whileDisabled = await emit(seller.organization.id, "order.paid", { n: "while-disabled" });
    await waitFor(
      async () =>
        (
          await t.server.database.rows(
            sql`select 1 from webhook_events where id = ${whileDisabled} and dispatched_at is not null`,
          )
        ).length === 1,
      5_000,
      "event dispatched while the endpoint is disabled",
    );
    mode = "ok";
    const reenabled = await api(t.url, `/v1/webhooks/endpoints/${created.body.id}`, {
      method: "PATCH",
      token: seller.token,
      body: { enabled: true },
    });
    expect(reenabled.status).toBe(200);
    expect(reenabled.body.enabled).toBe(true);
    await emit(seller.organization.id, "order.paid", { n: "after" });
    await waitFor(
      () => receiver.receipts.some((r) => r.status === 200),
      10_000,
      "delivered after re-enabling",
    );
    const ok = receiver.receipts.filter((r) => r.status === 200);
    expect(ok.map((r) => JSON.parse(r.body).data.n)).toEqual(["after"]);
  });

  it("the daily job archives payloads older than the retention period; archived events cannot be redelivered", async () => {
    const seller = await createSeller(t.url, ["webhooks:write"]);
    mode = "ok";
    const created = await api(t.url, "/v1/webhooks/endpoints", {
      token: seller.token,
      body: { url: `${receiver.url}/archive`, format: "raw", events: ["order.created"] },
    });
    secrets.set("/archive", created.body.secret);
    await emit(seller.organization.id, "order.created", { n: "old" });
    await emit(seller.organization.id, "order.created", { n: "new" });
    const list = () =>
      api(t.url, `/v1/webhooks/deliveries?endpoint_id=${created.body.id}&limit=100`, {
        token: seller.token,
      });
    await waitFor(async () => (await list()).body.items.length === 2, 10_000, "both delivered");
    const old = (await list()).body.items.find((d: { webhook_event: { payload: string } }) =>
      d.webhook_event.payload.includes('"old"'),
    ).webhook_event;
    const longAgo = new Date(Date.now() - 91 * 86_400_000).toISOString();
    await t.server.database.rows(
      sql`update webhook_endpoint_events set created_at = ${longAgo}::timestamptz where id = ${old.id}`,
    );
    await t.server.database.rows(
      sql`update webhook_events set created_at = ${longAgo}::timestamptz where organization_id = ${seller.organization.id} and payload->'data'->>'n' = 'old'`,
    );

    const jobId = await t.server.queue.send(ARCHIVE_JOB, {});
    await waitFor(
      async () =>
        (await t.server.queue.boss.getJobById(ARCHIVE_JOB, jobId!))?.state === "completed",
      15_000,
      "archive job",
    );
    const items = (await list()).body.items as {
      webhook_event: { id: string; payload: string | null; is_archived: boolean };
    }[];
    const archived = items.find((d) => d.webhook_event.id === old.id)!.webhook_event;
    const kept = items.find((d) => d.webhook_event.id !== old.id)!.webhook_event;
    expect(archived).toMatchObject({ payload: null, is_archived: true });
    expect(kept.is_archived).toBe(false);
    expect(kept.payload).toContain('"new"');
    const [outbox] = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from webhook_events where organization_id = ${seller.organization.id}`,
    );
    expect(outbox!.n).toBe(1);
    expect(
      (
        await api(t.url, `/v1/webhooks/events/${old.id}/redeliver`, {
          method: "POST",
          token: seller.token,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api(t.url, `/v1/webhooks/events/${kept.id}/redeliver`, {
          method: "POST",
          token: seller.token,
        })
      ).status,
    ).toBe(202);
  });
});
