import { createHash } from "node:crypto";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  countRows,
  polarFor,
  startCatalogServer,
  uploadFile,
} from "../../../test/helpers/catalog.ts";
import type { TestServer } from "../../../test/helpers/server.ts";
import { TestClock } from "../../lib/clock.ts";

let t: TestServer;
let seller: Awaited<ReturnType<typeof createSeller>>;
let other: Awaited<ReturnType<typeof createSeller>>;
const clock = new TestClock();
const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(3000, 7)]);
const sha = (b: Buffer) => createHash("sha256").update(b);

beforeAll(async () => {
  t = await startCatalogServer({
    clock,
    env: { FILES_MAX_SIZE: String(200 * 1024), FILES_UPLOAD_URL_TTL: "600" },
  });
  seller = await createSeller(t.url, ["files:write", "benefits:write"]);
  other = await createSeller(t.url, ["files:write"]);
});
afterAll(() => t?.stop());

const createBody = (overrides: Record<string, unknown> = {}) => ({
  service: "downloadable",
  name: "book.pdf",
  mime_type: "application/pdf",
  size: 10,
  upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
  ...overrides,
});

describe("files through Polar's client", () => {
  it("uploads in several parts, verifies the checksums and serves product media at public_url", async () => {
    const { created, file } = await uploadFile(t, seller.token, png, { partSize: 1024 });
    expect(created.upload.parts).toHaveLength(3);
    expect(created.upload.parts[0]!.url).toMatch(
      new RegExp(`^${t.url}/storage/uploads/${created.id}/1\\?expires=\\d+&signature=`),
    );
    expect(created.isUploaded).toBe(false);
    expect(created.path).toBe(`${seller.organization.id}/${created.id}/cover.png`);
    expect(file).toMatchObject({
      id: created.id,
      service: "product_media",
      isUploaded: true,
      size: png.length,
      sizeReadable: "2.9 KB",
      checksumSha256Base64: sha(png).digest("base64"),
      checksumSha256Hex: sha(png).digest("hex"),
    });
    expect(file.checksumEtag).toMatch(/^[0-9a-f]{32}-3$/);
    const media = await fetch((file as { publicUrl: string }).publicUrl);
    expect(media.status).toBe(200);
    expect(media.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await media.arrayBuffer()).equals(png)).toBe(true);
  });

  it("lists with pagination, renames, deletes; another organization's file is ResourceNotFound", async () => {
    const polar = polarFor(t, seller.token);
    const a = await uploadFile(t, seller.token, Buffer.from("first file"), {
      service: "downloadable",
      name: "a.txt",
      mimeType: "text/plain",
    });
    const b = await uploadFile(t, seller.token, Buffer.from("second file"), {
      service: "downloadable",
      name: "b.txt",
      mimeType: "text/plain",
    });
    const pages = [];
    for await (const page of await polar.files.list({ limit: 1, ids: [a.file.id, b.file.id] }))
      pages.push(page.result);
    expect(pages.map((p) => p.items[0]!.id)).toEqual([b.file.id, a.file.id]);
    expect(pages[0]!.pagination).toEqual({ totalCount: 2, maxPage: 2 });

    const renamed = await polar.files.update({
      id: a.file.id,
      filePatch: { name: "manual.txt", version: "1.2" },
    });
    expect(renamed).toMatchObject({ name: "manual.txt", version: "1.2", service: "downloadable" });

    const theirs = polarFor(t, other.token);
    await expect(
      theirs.files.update({ id: a.file.id, filePatch: { name: "x" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(theirs.files.delete({ id: a.file.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await theirs.files.list({})).result.items).toEqual([]);

    await polar.files.delete({ id: a.file.id });
    await expect(
      polar.files.update({ id: a.file.id, filePatch: { name: "x" } }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    const bad = {
      service: "downloadable" as const,
      name: "x",
      mimeType: "nope",
      size: 1,
      upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: 1 }] },
    };
    await expect(polar.files.create(bad)).rejects.toBeInstanceOf(HTTPValidationError);
  });

  it("a file offered by a downloadables benefit cannot be deleted (403) until the benefit lets it go", async () => {
    const { file } = await uploadFile(t, seller.token, Buffer.from("zip bytes"), {
      service: "downloadable",
      name: "pack.zip",
      mimeType: "application/zip",
    });
    const benefit = await api(t.url, "/v1/benefits/", {
      token: seller.token,
      body: { type: "downloadables", description: "The pack", properties: { files: [file.id] } },
    });
    expect(benefit.status).toBe(201);
    const res = await api(t.url, `/v1/files/${file.id}`, { method: "DELETE", token: seller.token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("NotPermitted");
    expect(await countRows(t, "files", seller.organization.id)).toBeGreaterThan(0);
    expect(
      (
        await api(t.url, `/v1/benefits/${benefit.body.id}`, {
          method: "DELETE",
          token: seller.token,
        })
      ).status,
    ).toBe(204);
    expect(
      (await api(t.url, `/v1/files/${file.id}`, { method: "DELETE", token: seller.token })).status,
    ).toBe(204);
  });
});

describe("file validation (raw HTTP): 4xx in Polar's shape, nothing written", () => {
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    [
      "product media that is not an image",
      { service: "product_media", mime_type: "application/pdf" },
      ["body", "mime_type"],
    ],
    [
      "product media over 10 MB",
      {
        service: "product_media",
        mime_type: "image/png",
        size: 10 * 1024 * 1024 + 1,
        upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 * 1024 * 1024 + 1 }] },
      },
      ["body", "size"],
    ],
    [
      "an avatar over 1 MB",
      { service: "organization_avatar", mime_type: "image/png", size: 1024 * 1024 + 1 },
      ["body", "size"],
    ],
    [
      "a size over FILES_MAX_SIZE",
      {
        size: 300 * 1024,
        upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 300 * 1024 }] },
      },
      ["body", "size"],
    ],
    ["a malformed MIME type", { mime_type: "pdf" }, ["body", "mime_type"]],
    ["an unsupported service", { service: "support_case_attachment" }, ["body", "service"]],
    ["no parts", { upload: { parts: [] } }, ["body", "upload", "parts"]],
    [
      "parts that leave a gap",
      {
        size: 10,
        upload: {
          parts: [
            { number: 1, chunk_start: 0, chunk_end: 4 },
            { number: 2, chunk_start: 5, chunk_end: 10 },
          ],
        },
      },
      ["body", "upload", "parts", 1, "chunk_start"],
    ],
    [
      "parts that do not reach the end",
      { size: 10, upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 9 }] } },
      ["body", "upload", "parts"],
    ],
    [
      "parts numbered from 2",
      { upload: { parts: [{ number: 2, chunk_start: 0, chunk_end: 10 }] } },
      ["body", "upload", "parts", 0, "number"],
    ],
    [
      "a checksum that is not base64 SHA-256",
      { checksum_sha256_base64: "abc" },
      ["body", "checksum_sha256_base64"],
    ],
  ];
  for (const [name, overrides, loc] of cases) {
    it(`${name} → 422 at ${loc.join(".")}`, async () => {
      const before = await countRows(t, "files");
      const res = await api(t.url, "/v1/files/", {
        token: seller.token,
        body: createBody(overrides),
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc.slice(0, loc.length)).toEqual(loc);
      expect(await countRows(t, "files")).toBe(before);
    });
  }

  async function created(content: Buffer, declared = content) {
    const res = await api(t.url, "/v1/files/", {
      token: seller.token,
      body: createBody({
        size: content.length,
        checksum_sha256_base64: sha(declared).digest("base64"),
        upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: content.length }] },
      }),
    });
    expect(res.status).toBe(201);
    return res.body;
  }
  const isUploaded = async (id: string) =>
    (
      await t.server.database.rows<{ is_uploaded: boolean }>(
        sql`select is_uploaded from files where id = ${id}`,
      )
    )[0]!.is_uploaded;

  it("a part PUT with a forged signature, to another file, or after expiry is refused (403)", async () => {
    const file = await created(Buffer.from("0123456789"));
    const url = new URL(file.upload.parts[0].url);
    const forged = `${url.origin}${url.pathname}?expires=${url.searchParams.get("expires")}&signature=AAAA${url.searchParams.get("signature")!.slice(4)}`;
    expect((await fetch(forged, { method: "PUT", body: "0123456789" })).status).toBe(403);
    const other = await created(Buffer.from("abcdefghij"));
    const swapped = url.toString().replace(file.id, other.id);
    expect((await fetch(swapped, { method: "PUT", body: "abcdefghij" })).status).toBe(403);
    clock.advance(601_000);
    try {
      const late = await fetch(url, { method: "PUT", body: "0123456789" });
      expect(late.status).toBe(403);
      expect((await late.json()).detail).toMatch(/expired/);
    } finally {
      clock.advance(-601_000);
    }
    expect(await isUploaded(file.id)).toBe(false);
  });

  it("a part of the wrong size or with the wrong checksum is refused (400/413) and not recorded", async () => {
    const content = Buffer.from("0123456789");
    const res = await api(t.url, "/v1/files/", {
      token: seller.token,
      body: createBody({
        upload: {
          parts: [
            {
              number: 1,
              chunk_start: 0,
              chunk_end: 10,
              checksum_sha256_base64: sha(content).digest("base64"),
            },
          ],
        },
      }),
    });
    const url = res.body.upload.parts[0].url;
    expect((await fetch(url, { method: "PUT", body: "012345678" })).status).toBe(400);
    expect((await fetch(url, { method: "PUT", body: "0123456789-too-long" })).status).toBe(413);
    const wrong = await fetch(url, { method: "PUT", body: "abcdefghij" });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).detail).toMatch(/checksum/);
    const done = await api(t.url, `/v1/files/${res.body.id}/uploaded`, {
      token: seller.token,
      body: {
        id: res.body.upload.id,
        path: res.body.path,
        parts: [{ number: 1, checksum_etag: "x" }],
      },
    });
    expect(done.status).toBe(422);
    expect(done.body.detail[0].msg).toMatch(/not been uploaded/);
  });

  it("completing with a wrong ETag, a wrong upload id or content that misses the declared SHA-256 → 422, file stays not uploaded", async () => {
    const file = await created(Buffer.from("0123456789"), Buffer.from("something else"));
    const put = await fetch(file.upload.parts[0].url, { method: "PUT", body: "0123456789" });
    const etag = put.headers.get("etag")!;
    const complete = (body: Record<string, unknown>) =>
      api(t.url, `/v1/files/${file.id}/uploaded`, {
        token: seller.token,
        body: {
          id: file.upload.id,
          path: file.path,
          parts: [{ number: 1, checksum_etag: etag }],
          ...body,
        },
      });
    const badEtag = await complete({ parts: [{ number: 1, checksum_etag: '"0000"' }] });
    expect(badEtag.status).toBe(422);
    expect(badEtag.body.detail[0].loc).toEqual(["body", "parts", 0, "checksum_etag"]);
    expect((await complete({ id: "not-the-upload" })).body.detail[0].loc).toEqual(["body", "id"]);
    const badSum = await complete({});
    expect(badSum.status).toBe(422);
    expect(badSum.body.detail[0].msg).toMatch(/SHA-256/);
    expect(await isUploaded(file.id)).toBe(false);
    // Another organization cannot complete it at all.
    const theirs = await api(t.url, `/v1/files/${file.id}/uploaded`, {
      token: other.token,
      body: { id: file.upload.id, path: file.path, parts: [{ number: 1, checksum_etag: etag }] },
    });
    expect(theirs.status).toBe(404);
  });

  it("media of a file that is not uploaded, or a downloadable, is not public", async () => {
    const file = await created(Buffer.from("0123456789"));
    expect((await fetch(`${t.url}/storage/public/${file.id}/book.pdf`)).status).toBe(404);
  });
});
