// The Benefits page in a real browser against a real server: each of the six types is created
// through its form and read back through the API with the properties the form set; a downloadable
// is uploaded through the form; a bad value comes back as a sentence beside its field; a benefit is
// edited and deleted; axe finds nothing on the forms at desktop and phone widths.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueDiscordGuildToken } from "../server/modules/benefits/discord.ts";
import { api } from "../test/helpers/auth.ts";
import { createCountMeter } from "../test/helpers/catalog.ts";
import { launchBrowser, snapshot } from "../test/helpers/chromium.ts";
import {
  axeViolations,
  PHONE,
  settled,
  signedInDashboard,
  type DashboardSession,
} from "../test/helpers/dashboard.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let browser: Browser;
let s: DashboardSession;
let page: Page;
let meterId: string;

interface BenefitJson {
  id: string;
  type: string;
  description: string;
  properties: Record<string, unknown>;
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ worker: false }), launchBrowser()]);
  s = await signedInDashboard(t.url, browser);
  page = s.page;
  meterId = await createCountMeter(t.url, s.token, "API calls", "call");
  await page.goto(`${t.url}/benefits`);
  await page.waitForSelector("text=No benefits yet");
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

const field = (label: string) => page.getByLabel(label, { exact: true });
// A select's accessible name also carries its chosen option ("Type Custom").
const select = (label: string) => page.getByRole("combobox", { name: new RegExp(`^${label}\\b`) });

async function benefitsOf(type: string): Promise<BenefitJson[]> {
  const res = await api(t.url, `/v1/benefits/?type=${type}`, { token: s.token });
  expect(res.status).toBe(200);
  return res.body.items;
}

/** Opens the form for a type with its description; the caller fills the rest and submits. */
async function startNew(type: string, description: string): Promise<void> {
  await page.click("button:has-text('New benefit')");
  await select("Type").selectOption(type);
  await field("Description").fill(description);
}

async function create(description: string): Promise<void> {
  await page.click("button:has-text('Create benefit')");
  // Either the row appears or the form says why not; the test reports the latter.
  await page.waitForSelector(
    `tbody tr:has-text('${description}'), form .field-error, form [role=alert]`,
  );
  expect(await page.locator("form .field-error, form [role=alert]").allTextContents()).toEqual([]);
  expect(await page.locator("form[aria-label='New benefit']").count()).toBe(0);
}

describe("benefits page", () => {
  it("creates a custom benefit with a note", async () => {
    await startNew("custom", "Priority support");
    await field("Note for the customer").fill("Email us at help@acme.test");
    expect(await axeViolations(page)).toEqual([]);
    await create("Priority support");
    expect(await benefitsOf("custom")).toMatchObject([
      { description: "Priority support", properties: { note: "Email us at help@acme.test" } },
    ]);
  });

  it("creates a Discord role benefit from a server token and a role id", async () => {
    const guildToken = issueDiscordGuildToken(t.config.authSecret, "123456789012345678");
    await startNew("discord", "Discord members");
    await field("Discord server token").fill(guildToken);
    await field("Role ID").fill("223456789012345678");
    await page.getByLabel("Remove the member from the server when the benefit is revoked").check();
    expect(await axeViolations(page)).toEqual([]);
    await create("Discord members");
    expect((await benefitsOf("discord"))[0]!.properties).toEqual({
      guild_id: "123456789012345678",
      role_id: "223456789012345678",
      kick_member: true,
      guild_token: guildToken,
    });
  });

  it("a GitHub owner the API refuses comes back as a sentence beside the field; fixed, it is created", async () => {
    await startNew("github_repository", "Repo access");
    await field("Repository owner").fill("-not valid-");
    await field("Repository name").fill("sdk.js");
    await select("Permission").selectOption("triage");
    await page.click("button:has-text('Create benefit')");
    const owner = field("Repository owner");
    await expect.poll(() => owner.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await owner.getAttribute("aria-describedby"))!;
    expect(await page.locator(`[id='${describedBy}']`).textContent()).toBe(
      "Repository owner must be a GitHub user or organization name.",
    );
    // Said once, beside the field; not repeated raw in the form's footer.
    expect(await page.locator("form [role=alert]").count()).toBe(0);
    expect(await page.textContent("form")).not.toContain("properties.repository_owner");
    expect(await axeViolations(page)).toEqual([]);
    await owner.fill("acme");
    await create("Repo access");
    expect((await benefitsOf("github_repository"))[0]!.properties).toEqual({
      repository_owner: "acme",
      repository_name: "sdk.js",
      permission: "triage",
    });
  });

  it("creates a downloadables benefit with a file uploaded through the form", async () => {
    await startNew("downloadables", "The handbook");
    await page.waitForSelector("text=No files yet");
    await field("Upload a file").setInputFiles({
      name: "handbook.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("%PDF-1.4 the handbook"),
    });
    const box = page.getByLabel(/handbook\.pdf/);
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await create("The handbook");
    const [benefit] = await benefitsOf("downloadables");
    const files = benefit!.properties.files as string[];
    expect(files).toHaveLength(1);
    const file = await api(t.url, `/v1/files/?ids=${files[0]}`, { token: s.token });
    expect(file.body.items[0]).toMatchObject({ name: "handbook.pdf", is_uploaded: true });
  });

  it("creates license keys with a prefix, expiry, activations and a usage limit", async () => {
    await startNew("license_keys", "License key");
    await field("Key prefix").fill("ACME");
    await field("Expires after").fill("2");
    await select("Expiry unit").selectOption("month");
    await field("Activation limit").fill("3");
    await page.getByLabel("Customers may deactivate their own activations").check();
    await field("Usage limit").fill("100");
    expect(await axeViolations(page)).toEqual([]);
    await create("License key");
    expect((await benefitsOf("license_keys"))[0]!.properties).toEqual({
      prefix: "ACME",
      expires: { ttl: 2, timeframe: "month" },
      activations: { limit: 3, enable_customer_admin: true },
      limit_usage: 100,
    });
  });

  it("creates meter credits on a meter picked from the organization's meters", async () => {
    await startNew("meter_credit", "1000 API calls");
    expect(await select("Meter").inputValue()).toBe(meterId);
    await field("Units").fill("1000");
    await page.getByLabel("Roll unused units over to the next period").check();
    expect(await axeViolations(page)).toEqual([]);
    await create("1000 API calls");
    expect((await benefitsOf("meter_credit"))[0]!.properties).toEqual({
      meter_id: meterId,
      units: 1000,
      rollover: true,
    });
  });

  it("lists all six types and filters by type", async () => {
    expect(await page.locator("tbody tr").count()).toBe(6);
    await select("Show").selectOption("license_keys");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.textContent("tbody")).toContain("Keys start with ACME");
    await select("Show").selectOption("");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(6);
  });

  it("edits a benefit's description and properties", async () => {
    await page.click("button[aria-label='Edit License key']");
    const form = page.locator("form[aria-label='Edit License key']");
    expect(await form.getByLabel("Key prefix").inputValue()).toBe("ACME");
    await form.getByLabel("Description").fill("Pro license");
    await form.getByLabel("Key prefix").fill("PRO");
    await form.getByLabel("Expires after").fill("");
    await page.click("button:has-text('Save benefit')");
    await page.waitForSelector("tbody tr:has-text('Pro license')");
    expect((await benefitsOf("license_keys"))[0]).toMatchObject({
      description: "Pro license",
      properties: { prefix: "PRO", expires: null, limit_usage: 100 },
    });
  });

  it("deletes a benefit", async () => {
    const [custom] = await benefitsOf("custom");
    await page.click("button[aria-label='Delete Priority support']");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(5);
    expect((await api(t.url, `/v1/benefits/${custom!.id}`, { token: s.token })).status).toBe(404);
  });

  it("on a phone the list and the form have no axe violations", async () => {
    await page.setViewportSize(PHONE);
    await settled(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.click("button:has-text('New benefit')");
    await select("Type").selectOption("license_keys");
    expect(await axeViolations(page)).toEqual([]);
    await snapshot(page, "dashboard-benefit-form-phone", { fullPage: true });
  });
});
