// What a purchase grants, end to end through Polar's official client: a subscription product with
// one benefit of each type is bought in the sandbox; the worker grants all six (Discord and GitHub
// against the local API server); the license key validates and activates up to its limit; the
// download URL serves the file's bytes; the meter shows the credit; revoking the subscription takes
// it all back. The failure paths are in grants-failures.test.ts.
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { insertMeter, uploadFile } from "../../../test/helpers/catalog.ts";
import { buy, eventually, linkAccounts } from "../../../test/helpers/grants.ts";
import {
  DISCORD_USER,
  discordBenefit,
  GUILD,
  grantsOf,
  organizationId,
  outbox,
  polar,
  ROLE,
  t,
  third,
  token,
  withGrantsShop,
} from "../../../test/helpers/grants-flow.ts";

withGrantsShop();

describe("a purchase grants every benefit type, and revoking the subscription takes them back", () => {
  it("grants all six, serves them, and revokes them", async () => {
    const fileBytes = randomBytes(70_000);
    const { file } = await uploadFile(t, token, fileBytes, {
      service: "downloadable",
      name: "manual.pdf",
    });
    const meterId = await insertMeter(t, organizationId, "API calls");
    const benefits = [
      await polar.benefits.create({
        type: "custom",
        description: "Private note",
        properties: { note: "Welcome aboard: ask for the beta channel." },
      }),
      await polar.benefits.create({
        type: "license_keys",
        description: "License key",
        properties: {
          prefix: "ACME",
          activations: { limit: 2, enableCustomerAdmin: false },
          limitUsage: 5,
          expires: { ttl: 1, timeframe: "year" },
        },
      }),
      await polar.benefits.create({
        type: "downloadables",
        description: "The manual",
        properties: { files: [file.id] },
      }),
      await polar.benefits.create({
        type: "meter_credit",
        description: "100 API calls",
        properties: { units: 100, rollover: false, meterId },
      }),
      await discordBenefit(),
      await polar.benefits.create({
        type: "github_repository",
        description: "SDK repository",
        properties: { repositoryOwner: "acme", repositoryName: "private-sdk", permission: "pull" },
      }),
    ];
    const product = await polar.products.create({
      name: "Everything",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "usd" }],
    });
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: benefits.map((b) => b.id) },
    });
    const email = "everything@example.com";
    await linkAccounts(t, email, { discord: DISCORD_USER, github: "5001" });

    const order = await buy(polar, organizationId, product.id, email);
    expect(order.status).toBe("paid");
    const customerId = order.customerId;

    const granted = await eventually(
      async () => {
        const items = await grantsOf(customerId);
        return items.length === 6 && items.every((g) => g.isGranted) ? items : undefined;
      },
      20_000,
      "six granted grants",
    );
    expect(new Set(granted.map((g) => g.benefitId))).toEqual(new Set(benefits.map((b) => b.id)));
    for (const g of granted) {
      expect(g).toMatchObject({
        isGranted: true,
        isRevoked: false,
        subscriptionId: order.subscriptionId,
        orderId: order.id,
        customerId,
      });
      expect(g.error ?? null).toBeNull();
    }
    // The customer sees the same six grants through the customer portal with a customer session.
    const session = await polar.customerSessions.create({ customerId });
    const portal = await fetch(`${t.url}/v1/customer-portal/benefit-grants/?page=1&limit=100`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(portal.status).toBe(200);
    const portalGrants = (await portal.json()) as { items: { id: string }[] };
    expect(new Set(portalGrants.items.map((g) => g.id))).toEqual(new Set(granted.map((g) => g.id)));

    const byType = (type: string) =>
      granted.find((g) => benefits.find((b) => b.id === g.benefitId)!.type === type)!;

    // Discord: a member of the guild with the role; GitHub: an invitation with the permission.
    expect([...(third.guilds.get(GUILD)!.get(DISCORD_USER) ?? [])]).toEqual([ROLE]);
    expect(byType("discord").properties).toMatchObject({
      guildId: GUILD,
      roleId: ROLE,
      grantedAccountId: DISCORD_USER,
    });
    expect(third.repos.get("acme/private-sdk")!.invitations).toMatchObject([
      { login: "octo-buyer", permission: "pull" },
    ]);
    expect(byType("github_repository").properties).toMatchObject({
      repositoryOwner: "acme",
      repositoryName: "private-sdk",
      grantedAccountId: "octo-buyer",
    });

    // License key: validates, activates up to its limit of 2, counts usage up to its limit of 5.
    const keyId = (byType("license_keys").properties as { licenseKeyId: string }).licenseKeyId;
    const licenseKey = await polar.licenseKeys.get({ id: keyId });
    expect(licenseKey.key).toMatch(/^ACME-[0-9A-F]{8}-[0-9A-F]{8}-[0-9A-F]{8}-[0-9A-F]{8}$/);
    expect(licenseKey).toMatchObject({
      status: "granted",
      limitActivations: 2,
      limitUsage: 5,
      usage: 0,
      customerId,
      benefitId: benefits[1]!.id,
      displayKey: `****-${licenseKey.key.slice(-6)}`,
    });
    const expiresIn = licenseKey.expiresAt!.getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(360 * 86_400_000);
    expect(expiresIn).toBeLessThan(367 * 86_400_000);
    const validated = await polar.customerPortal.licenseKeys.validate({
      key: licenseKey.key,
      organizationId,
    });
    expect(validated).toMatchObject({
      id: keyId,
      status: "granted",
      validations: 1,
      activation: null,
    });
    const a1 = await polar.customerPortal.licenseKeys.activate({
      key: licenseKey.key,
      organizationId,
      label: "laptop",
      meta: { os: "linux" },
    });
    const a2 = await polar.licenseKeys.activate({
      key: licenseKey.key,
      organizationId,
      label: "desktop",
    });
    expect(a1).toMatchObject({ label: "laptop", meta: { os: "linux" }, licenseKeyId: keyId });
    const third3 = await fetch(`${t.url}/v1/customer-portal/license-keys/activate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        key: licenseKey.key,
        organization_id: organizationId,
        label: "third",
      }),
    });
    expect(third3.status).toBe(403);
    expect(await third3.json()).toMatchObject({ error: "NotPermitted" });
    const withActivation = await polar.customerPortal.licenseKeys.validate({
      key: licenseKey.key,
      organizationId,
      activationId: a2.id,
      incrementUsage: 5,
    });
    expect(withActivation.activation?.id).toBe(a2.id);
    expect(withActivation.usage).toBe(5);
    const over = await fetch(`${t.url}/v1/customer-portal/license-keys/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        key: licenseKey.key,
        organization_id: organizationId,
        increment_usage: 1,
      }),
    });
    expect(over.status).toBe(400);
    expect((await polar.licenseKeys.get({ id: keyId })).activations.map((a) => a.label)).toEqual([
      "laptop",
      "desktop",
    ]);
    await polar.customerPortal.licenseKeys.deactivate({
      key: licenseKey.key,
      organizationId,
      activationId: a1.id,
    });
    expect((await polar.licenseKeys.get({ id: keyId })).activations.map((a) => a.label)).toEqual([
      "desktop",
    ]);

    // Download: a signed URL serving exactly the uploaded bytes.
    const dl = await fetch(
      `${t.url}/v1/benefit-grants/${byType("downloadables").id}/downloadables`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const { items } = (await dl.json()) as {
      items: { file: { id: string; checksum_sha256_hex: string; download: { url: string } } }[];
    };
    expect(items.map((i) => i.file.id)).toEqual([file.id]);
    const bytes = Buffer.from(await (await fetch(items[0]!.file.download.url)).arrayBuffer());
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(
      createHash("sha256").update(fileBytes).digest("hex"),
    );
    expect(items[0]!.file.checksum_sha256_hex).toBe(
      createHash("sha256").update(fileBytes).digest("hex"),
    );
    // A changed first character of the signature (never the same one, or the URL would be valid).
    const tampered = await fetch(
      items[0]!.file.download.url.replace(/signature=(.)/, (_, c: string) =>
        c === "x" ? "signature=y" : "signature=x",
      ),
    );
    expect(tampered.status).toBe(404);

    // Meter credit: 100 credited; 3 events consumed leave 97.
    let state = await polar.customers.getState({ id: customerId });
    expect(state.grantedBenefits.map((g) => g.benefitId).sort()).toEqual(
      benefits.map((b) => b.id).sort(),
    );
    expect(state.activeMeters).toMatchObject([
      { meterId, creditedUnits: 100, consumedUnits: 0, balance: 100 },
    ]);
    await polar.events.ingest({ events: [1, 2, 3].map(() => ({ name: "api_call", customerId })) });
    state = await polar.customers.getState({ id: customerId });
    expect(state.activeMeters).toMatchObject([
      { meterId, creditedUnits: 100, consumedUnits: 3, balance: 97 },
    ]);

    // Webhook events: created for each grant, with customer.state_changed after the changes.
    expect((await outbox("benefit_grant.created")).length).toBe(6);

    // Revoke the subscription: every grant is revoked, and what it gave is gone.
    await polar.subscriptions.revoke({ id: order.subscriptionId! });
    await eventually(
      async () => {
        const items = await grantsOf(customerId);
        return items.every((g) => g.isRevoked && !g.isGranted) ? items : undefined;
      },
      20_000,
      "six revoked grants",
    );
    expect([...(third.guilds.get(GUILD)!.get(DISCORD_USER) ?? [])]).toEqual([]);
    expect(third.repos.get("acme/private-sdk")!.invitations).toEqual([]);
    const gone = await fetch(`${t.url}/v1/customer-portal/license-keys/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: licenseKey.key, organization_id: organizationId }),
    });
    expect(gone.status).toBe(404);
    expect((await polar.licenseKeys.get({ id: keyId })).status).toBe("revoked");
    expect((await fetch(items[0]!.file.download.url)).status).toBe(404);
    state = await polar.customers.getState({ id: customerId });
    expect(state.grantedBenefits).toEqual([]);
    expect(state.activeMeters).toMatchObject([{ meterId, creditedUnits: 0 }]);
    expect((await outbox("benefit_grant.revoked")).length).toBe(6);
    const changed = await outbox("customer.state_changed");
    expect(changed.length).toBeGreaterThanOrEqual(12);
  });
});
