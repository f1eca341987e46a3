// The tenants of the benefit suites: a catalog server, a seller with a meter and a downloadable
// file, and another organization. Each suite file gets its own.
import { afterAll, beforeAll } from "vitest";
import { createSeller } from "./auth.ts";
import { insertMeter, startCatalogServer, uploadFile } from "./catalog.ts";
import type { TestServer } from "./server.ts";

export let t: TestServer;
export let seller: Awaited<ReturnType<typeof createSeller>>;
export let other: Awaited<ReturnType<typeof createSeller>>;
export let meterId: string;
export let fileId: string;

/** Registers the suite's server, the seller with its meter and file, and the other organization. */
export function withBenefitTenants(): void {
  beforeAll(async () => {
    t = await startCatalogServer();
    seller = await createSeller(t.url, ["benefits:write", "files:write"]);
    other = await createSeller(t.url, ["benefits:write", "files:write"]);
    meterId = await insertMeter(t, seller.organization.id);
    fileId = (
      await uploadFile(t, seller.token, Buffer.from("the book"), {
        service: "downloadable",
        name: "book.pdf",
        mimeType: "application/pdf",
      })
    ).file.id;
  });
  afterAll(() => t?.stop());
}
