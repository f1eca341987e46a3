// Fault test with a real process: the SMTP relay is down when a sale's receipt goes out, and comes
// back while `till serve` keeps running. The receipt, recorded in the outbox with its error, is sent
// once the relay answers again, and only once. Before, the failed receipt stayed failed for good.
import { afterAll, describe, expect, it } from "vitest";
import { US_ADDRESS } from "../../../test/helpers/addresses.ts";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../../../test/helpers/db.ts";
import { spawnTillServer, tempDir, type SpawnedServer } from "../../../test/helpers/process.ts";
import { freePort } from "../../../test/helpers/server.ts";
import { serveEnv } from "../../../test/helpers/spawned-seller.ts";
import { type LocalSmtp, startSmtp } from "../../../test/helpers/smtp-server.ts";
import { waitFor } from "../../../test/helpers/webhook-receiver.ts";

let testDb: TestDatabase | null = null;
let server: SpawnedServer | null = null;
let smtp: LocalSmtp | null = null;
afterAll(async () => {
  server?.child.kill("SIGKILL");
  await server?.child.catch(() => {});
  await smtp?.close();
  await testDb?.dispose();
});

describe(`a receipt while the SMTP relay is down (${usingPostgres() ? "PostgreSQL" : "PGlite data dir"})`, () => {
  it("is sent once the relay is back, without a restart, once", {
    timeout: 180_000,
  }, async () => {
    const smtpPort = await freePort();
    const cwd = tempDir("till-smtp-down-");
    const env: Record<string, string> = {
      ...(await serveEnv(cwd)),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      EMAIL_FROM: "till <mail@till.test>",
    };
    if (usingPostgres()) {
      testDb = await openTestDatabase();
      env.DATABASE_URL = testDb.url!;
    }
    server = await spawnTillServer("serve", env, cwd);
    const { token } = await createSeller(server.url, ["products:write", "checkouts:write"]);
    const product = await api(server.url, "/v1/products/", {
      token,
      body: {
        name: "Ebook",
        prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
      },
    });
    expect(product.status).toBe(201);
    const checkout = await api(server.url, "/v1/checkouts/", {
      token,
      body: { products: [product.body.id] },
    });
    const buyer = "buyer-smtp@example.com";
    const confirmed = await api(
      server.url,
      `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
      {
        body: {
          customer_email: buyer,
          customer_billing_address: US_ADDRESS,
          confirmation_token_id: "sandbox_token_success",
        },
      },
    );
    expect(confirmed.status).toBe(200);
    // The receipt job ran and found nobody listening on the relay's port.
    await waitFor(
      () => server!.output().includes('"msg":"email delivery failed"'),
      30_000,
      "the receipt's delivery failed",
    );

    smtp = await startSmtp(smtpPort);
    const received = smtp.received;
    const receipts = () => received.filter((m) => m.data.includes("Your receipt from"));
    await waitFor(() => receipts().length > 0, 120_000, "the receipt sent after the outage");
    expect(receipts()).toHaveLength(1);
    expect(receipts()[0]!.to).toEqual([buyer]);
  });
});
