// Files: Polar's upload flow. Creating a file returns an upload plan with one signed till URL per
// part; the client PUTs each part there, then confirms with the parts' ETags; till joins the parts,
// verifies the SHA-256 the client declared and only then marks the file uploaded.
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import type { Readable } from "node:stream";
import { inTransaction, type Db } from "../../../db/client.ts";
import type { Config } from "../../config.ts";
import type { FileUploadPart } from "../../../db/schema/index.ts";
import { organizationForWrite, type AuthContext } from "../../lib/auth-context.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  ApiError,
  BadRequest,
  NotPermitted,
  RequestValidationError,
  ResourceNotFound,
} from "../../lib/errors.ts";
import { type OrgScope, scopeOfCaller, scopeOfResource } from "../../lib/org-scope.ts";
import { offsetOf, pageOf, type Pagination } from "../../lib/pagination.ts";
import { benefitsUsingFile } from "../benefits/queries.ts";
import * as repo from "./repository.ts";
import {
  fileReadOut,
  fileUploadOut,
  sizeReadable,
  type FileCreate,
  type FilePatch,
  type FileService,
  type FileUploadCompleted,
} from "./schemas.ts";
import { localDiskStorage, PartTooLarge, type FileStorage } from "./storage.ts";
import { uploadUrl, verifyUploadUrl } from "./upload-urls.ts";

export interface FileDeps {
  db: Db;
  clock: Clock;
  storage: FileStorage;
  baseUrl: string;
  secret: string;
  maxSize: number;
  uploadUrlTtlSeconds: number;
}

/** Files on local disk under the data dir, URLs from BASE_URL, upload URLs signed with AUTH_SECRET. */
export function fileDeps(config: Readonly<Config>, db: Db, clock: Clock): FileDeps {
  return {
    db,
    clock,
    storage: localDiskStorage(path.join(config.dataDir, "files")),
    baseUrl: config.baseUrl,
    secret: config.authSecret,
    maxSize: config.files.maxSize,
    uploadUrlTtlSeconds: config.files.uploadUrlTtlSeconds,
  };
}

const storageKey = (row: { organizationId: string; id: string }) =>
  `${row.organizationId}/${row.id}`;

export async function createFile(deps: FileDeps, ctx: AuthContext, input: FileCreate) {
  const organizationId = organizationForWrite(ctx, input.organization_id);
  if (input.size > deps.maxSize) {
    throw RequestValidationError.field(
      ["body", "size"],
      `A maximum of ${sizeReadable(deps.maxSize)} is allowed (FILES_MAX_SIZE).`,
      "less_than_equal",
    );
  }
  // Parts must tile the file exactly: numbered 1..n, chunk_end exclusive, no gaps or overlaps.
  const parts = [...input.upload.parts].sort((a, b) => a.number - b.number);
  let expectedStart = 0;
  parts.forEach((p, i) => {
    const loc = ["body", "upload", "parts", i];
    if (p.number !== i + 1)
      throw RequestValidationError.field(
        [...loc, "number"],
        "Parts must be numbered 1, 2, 3… without gaps.",
      );
    if (p.chunk_start !== expectedStart)
      throw RequestValidationError.field(
        [...loc, "chunk_start"],
        `Part ${p.number} must start at byte ${expectedStart}.`,
      );
    if (p.chunk_end < p.chunk_start)
      throw RequestValidationError.field(
        [...loc, "chunk_end"],
        "chunk_end must not be before chunk_start.",
      );
    expectedStart = p.chunk_end;
  });
  if (expectedStart !== input.size) {
    throw RequestValidationError.field(
      ["body", "upload", "parts"],
      `The parts cover ${expectedStart} bytes but the file has ${input.size} (chunk_end is exclusive).`,
    );
  }
  const id = randomUUID();
  const now = deps.clock.now();
  const row = await repo.insertFile(deps.db, {
    id,
    organizationId,
    service: input.service,
    name: input.name,
    path: `${organizationId}/${id}/${input.name}`,
    mimeType: input.mime_type,
    size: input.size,
    version: input.version ?? null,
    declaredSha256Base64: input.checksum_sha256_base64 ?? null,
    uploadId: randomUUID(),
    parts: parts.map((p) => ({
      number: p.number,
      chunk_start: p.chunk_start,
      chunk_end: p.chunk_end,
      checksum_sha256_base64: p.checksum_sha256_base64 ?? null,
    })),
    createdAt: now,
  });
  const expiresAt = new Date(now.getTime() + deps.uploadUrlTtlSeconds * 1000);
  return fileUploadOut(
    row,
    row.parts.map((p) => ({
      number: p.number,
      chunk_start: p.chunk_start,
      chunk_end: p.chunk_end,
      checksum_sha256_base64: p.checksum_sha256_base64,
      url: uploadUrl(deps.baseUrl, deps.secret, row.id, p.number, expiresAt),
      expires_at: expiresAt.toISOString(),
      headers: (p.checksum_sha256_base64
        ? { "x-till-checksum-sha256": p.checksum_sha256_base64 }
        : {}) as Record<string, string>,
    })),
  );
}

export interface ReceivedPart {
  etag: string;
}

/** PUT of one part through its signed URL. Checks size and, when declared, the part's SHA-256. */
export async function receivePart(
  deps: FileDeps,
  fileId: string,
  number: number,
  query: { expires: string; signature: string },
  body: Readable,
): Promise<ReceivedPart> {
  if (
    !verifyUploadUrl(deps.secret, fileId, number, query.expires, query.signature, deps.clock.now())
  ) {
    throw new NotPermitted(
      "This upload URL is invalid or has expired. Create the file again to get new URLs.",
    );
  }
  const row = await repo.findFileForSignedUrl(deps.db, fileId);
  if (!row) throw new ResourceNotFound("File not found.");
  if (row.isUploaded)
    throw new ApiError(
      409,
      "FileAlreadyUploaded",
      "This file has already been uploaded and completed.",
    );
  const index = row.parts.findIndex((p) => p.number === number);
  const plan = row.parts[index];
  if (!plan) throw new ResourceNotFound(`The upload has no part ${number}.`);
  const expected = plan.chunk_end - plan.chunk_start;
  let stored: Awaited<ReturnType<FileDeps["storage"]["writePart"]>>;
  try {
    stored = await deps.storage.writePart(row.id, number, body, expected);
  } catch (err) {
    if (err instanceof PartTooLarge)
      throw new ApiError(
        413,
        "PayloadTooLarge",
        `Part ${number} must be exactly ${expected} bytes (chunk_end - chunk_start).`,
      );
    throw err;
  }
  if (stored.size !== expected)
    throw new BadRequest(
      `Part ${number} must be exactly ${expected} bytes; received ${stored.size}.`,
    );
  if (plan.checksum_sha256_base64 && plan.checksum_sha256_base64 !== stored.sha256Base64) {
    throw new BadRequest(`Part ${number} does not match its declared SHA-256 checksum.`);
  }
  await repo.recordPart(deps.db, row.id, index, stored.md5Hex, stored.size);
  return { etag: `"${stored.md5Hex}"` };
}

/** S3's multipart ETag: MD5 of the parts' binary MD5s, then "-" and the number of parts. */
function multipartEtag(parts: FileUploadPart[]): string {
  const md5 = createHash("md5");
  for (const p of parts) md5.update(Buffer.from(p.etag!, "hex"));
  return `${md5.digest("hex")}-${parts.length}`;
}

const unquote = (etag: string) => etag.replace(/^W\//, "").replace(/^"|"$/g, "");

export async function completeUpload(
  deps: FileDeps,
  ctx: AuthContext,
  id: string,
  input: FileUploadCompleted,
) {
  const row = await repo.findFile(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("File not found.");
  if (row.isUploaded) return fileReadOut(deps.baseUrl, row);
  if (input.id !== row.uploadId)
    throw RequestValidationError.field(["body", "id"], "This is not the upload id of the file.");
  if (input.path !== row.path)
    throw RequestValidationError.field(["body", "path"], "This is not the path of the file.");
  input.parts.forEach((given, i) => {
    const plan = row.parts.find((p) => p.number === given.number);
    if (!plan)
      throw RequestValidationError.field(
        ["body", "parts", i, "number"],
        `The upload has no part ${given.number}.`,
      );
    if (!plan.etag)
      throw RequestValidationError.field(
        ["body", "parts", i, "number"],
        `Part ${given.number} has not been uploaded yet.`,
      );
    if (unquote(given.checksum_etag) !== plan.etag)
      throw RequestValidationError.field(
        ["body", "parts", i, "checksum_etag"],
        `The ETag of part ${given.number} does not match what was received.`,
      );
    if (
      given.checksum_sha256_base64 &&
      plan.checksum_sha256_base64 &&
      given.checksum_sha256_base64 !== plan.checksum_sha256_base64
    ) {
      throw RequestValidationError.field(
        ["body", "parts", i, "checksum_sha256_base64"],
        `The SHA-256 of part ${given.number} does not match the one declared.`,
      );
    }
  });
  const listed = new Set(input.parts.map((p) => p.number));
  const missing = row.parts.find((p) => !listed.has(p.number));
  if (missing)
    throw RequestValidationError.field(
      ["body", "parts"],
      `Part ${missing.number} is missing from the list.`,
    );

  const key = storageKey(row);
  const object = await deps.storage.complete(
    row.id,
    row.parts.map((p) => p.number),
    key,
  );
  const sha256Base64 = object.sha256.toString("base64");
  if (
    object.size !== row.size ||
    (row.declaredSha256Base64 && row.declaredSha256Base64 !== sha256Base64)
  ) {
    await deps.storage.remove(key, row.id);
    await repo.updateFile(deps.db, row.id, {
      parts: row.parts.map(({ etag: _e, size: _s, ...p }) => p),
    });
    throw RequestValidationError.field(
      ["body"],
      "The uploaded content does not match the size or SHA-256 checksum declared when the file was created; upload the parts again.",
    );
  }
  const now = deps.clock.now();
  const updated = await repo.updateFile(deps.db, row.id, {
    isUploaded: true,
    checksumEtag: multipartEtag(row.parts),
    checksumSha256Base64: sha256Base64,
    checksumSha256Hex: object.sha256.toString("hex"),
    lastModifiedAt: now,
    modifiedAt: now,
  });
  return fileReadOut(deps.baseUrl, updated);
}

export async function listFiles(
  deps: FileDeps,
  ctx: AuthContext,
  query: { organization_id?: string[] | undefined; ids?: string[] | undefined },
  page: Pagination,
) {
  const { rows, total } = await repo.listFiles(
    deps.db,
    scopeOfCaller(ctx, query.organization_id),
    query.ids,
    page.limit,
    offsetOf(page),
  );
  return pageOf(
    rows.map((r) => fileReadOut(deps.baseUrl, r)),
    total,
    page,
  );
}

export async function updateFile(deps: FileDeps, ctx: AuthContext, id: string, input: FilePatch) {
  const row = await repo.findFile(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("File not found.");
  const values: Parameters<typeof repo.updateFile>[2] = { modifiedAt: deps.clock.now() };
  if (input.name) values.name = input.name;
  if (input.version !== undefined) values.version = input.version;
  return fileReadOut(deps.baseUrl, await repo.updateFile(deps.db, id, values));
}

export async function deleteFile(deps: FileDeps, ctx: AuthContext, id: string): Promise<void> {
  const row = await repo.findFile(deps.db, scopeOfCaller(ctx), id);
  if (!row) throw new ResourceNotFound("File not found.");
  await inTransaction(deps.db, async (tx) => {
    const users = await benefitsUsingFile(tx, scopeOfResource(row), row.id);
    if (users.length > 0) {
      throw new NotPermitted(
        `The file is offered by the downloadables benefit ${users.join(", ")}; remove it from the benefit first.`,
      );
    }
    await repo.deleteFile(tx, row.id);
  });
  await deps.storage.remove(storageKey(row), row.id);
}

/** Product media and avatars are public: anyone with the URL may fetch them once uploaded. */
export async function openPublicFile(deps: FileDeps, id: string) {
  const row = await repo.findPublicFile(deps.db, id);
  if (!row?.isUploaded || row.service === "downloadable")
    throw new ResourceNotFound("File not found.");
  const object = await deps.storage.open(storageKey(row));
  if (!object) throw new ResourceNotFound("File not found.");
  return { row, ...object };
}

// For other modules: validate file references and render them.

/** The files among `ids` in the scope that are uploaded and of the given service. */
export async function usableFiles(db: Db, scope: OrgScope, ids: string[], service: FileService) {
  const rows = await repo.findFiles(db, scope, ids);
  return rows.filter((r) => r.isUploaded && r.service === service);
}

/** The live files among `ids` in the scope (what a product or grant of it refers to). */
export async function filesByIds(db: Db, scope: OrgScope, ids: string[]) {
  return repo.findFiles(db, scope, ids);
}

export { fileReadOut };

/** A downloadable's bytes, for the signed download URLs of benefit grants; null when gone. */
export async function openDownloadable(deps: FileDeps, id: string) {
  const row = await repo.findFileForSignedUrl(deps.db, id);
  if (!row?.isUploaded || row.service !== "downloadable") return null;
  const object = await deps.storage.open(storageKey(row));
  return object ? { row, ...object } : null;
}
