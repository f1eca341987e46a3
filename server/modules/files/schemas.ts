// Wire schemas for Polar's files: FileCreate (by service), FileUpload (the upload plan with till's
// signed part URLs), FileUploadCompleted, FilePatch and the FileRead variants.
import { z } from "zod";
import { queryList } from "../../lib/query.ts";
import { nullableTimestamp, timestamp } from "../../lib/wire.ts";
import type { FileRow } from "./repository.ts";

export const FILE_SERVICES = ["downloadable", "product_media", "organization_avatar"] as const;
export type FileService = (typeof FILE_SERVICES)[number];

const IMAGE_MIME = /^image\/(jpeg|png|gif|webp|svg\+xml)$/;
const ANY_MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
export const MB = 1024 * 1024;

const part = z.object({
  number: z.number().int().min(1).max(10000),
  chunk_start: z.number().int().min(0),
  chunk_end: z.number().int().min(0),
  checksum_sha256_base64: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, "must be a base64 SHA-256 digest")
    .nullish(),
});

const base = {
  organization_id: z.uuid().nullish(),
  name: z.string().min(1).max(255),
  size: z.number().int().min(0),
  checksum_sha256_base64: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, "must be a base64 SHA-256 digest")
    .nullish(),
  upload: z.object({ parts: z.array(part).min(1).max(10000) }),
  version: z.string().max(255).nullish(),
};

const imageMime = z
  .string()
  .regex(
    IMAGE_MIME,
    "Only images are supported for this type of file: image/jpeg, image/png, image/gif, image/webp or image/svg+xml.",
  );

export const fileCreate = z.discriminatedUnion("service", [
  z.object({
    service: z.literal("downloadable"),
    ...base,
    mime_type: z.string().regex(ANY_MIME, "must be a MIME type such as application/zip"),
  }),
  z.object({
    service: z.literal("product_media"),
    ...base,
    mime_type: imageMime,
    size: base.size.max(10 * MB, "A maximum of 10 MB is allowed for this type of file."),
  }),
  z.object({
    service: z.literal("organization_avatar"),
    ...base,
    mime_type: imageMime,
    size: base.size.max(MB, "A maximum of 1 MB is allowed for this type of file."),
  }),
]);
export type FileCreate = z.output<typeof fileCreate>;

export const fileUploadCompleted = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  parts: z
    .array(
      z.object({
        number: z.number().int().min(1),
        checksum_etag: z.string().min(1),
        checksum_sha256_base64: z.string().nullish(),
      }),
    )
    .min(1),
});
export type FileUploadCompleted = z.output<typeof fileUploadCompleted>;

export const filePatch = z.object({
  name: z.string().min(1).max(255).nullish(),
  version: z.string().max(255).nullish(),
});
export type FilePatch = z.output<typeof filePatch>;

export const fileListQuery = z.object({
  organization_id: queryList(z.uuid()).optional(),
  ids: queryList(z.uuid()).optional(),
});

/** As Polar prints sizes: "500.0 B", "2.0 KB", "1.5 MB". */
export function sizeReadable(bytes: number): string {
  let n = bytes;
  for (const unit of ["", "K", "M", "G", "T", "P", "E", "Z"]) {
    if (Math.abs(n) < 1024) return `${n.toFixed(1)} ${unit}B`;
    n /= 1024;
  }
  return `${n.toFixed(1)} YiB`;
}

export function publicUrlOf(baseUrl: string, row: Pick<FileRow, "id" | "name">): string {
  return `${baseUrl}/storage/public/${row.id}/${encodeURIComponent(row.name)}`;
}

function common(row: FileRow) {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    path: row.path,
    mime_type: row.mimeType,
    size: row.size,
    storage_version: row.storageVersion,
    checksum_etag: row.checksumEtag,
    checksum_sha256_base64: row.checksumSha256Base64,
    checksum_sha256_hex: row.checksumSha256Hex,
    last_modified_at: row.lastModifiedAt?.toISOString() ?? null,
    version: row.version,
  };
}

const fileCommon = {
  id: z.uuid(),
  organization_id: z.uuid(),
  name: z.string(),
  path: z.string(),
  mime_type: z.string(),
  size: z.number().int(),
  storage_version: z.string().nullable(),
  checksum_etag: z.string().nullable(),
  checksum_sha256_base64: z.string().nullable(),
  checksum_sha256_hex: z.string().nullable(),
  last_modified_at: nullableTimestamp,
  version: z.string().nullable(),
  service: z.enum(FILE_SERVICES),
  is_uploaded: z.boolean(),
  created_at: timestamp,
  size_readable: z.string(),
};
export const fileReadSchema = z
  .union([
    z.object({ ...fileCommon, flagged_malicious_at: nullableTimestamp }),
    z.object({ ...fileCommon, public_url: z.string() }),
  ])
  .meta({ id: "FileRead" });
export type FileReadOut = z.output<typeof fileReadSchema>;

export const productMediaSchema = z
  .object({ ...fileCommon, service: z.literal("product_media"), public_url: z.string() })
  .meta({ id: "ProductMediaFileRead" });
export type ProductMediaOut = z.output<typeof productMediaSchema>;

/** A product's media: always a product_media file, with the URL anyone can fetch it at. */
export function productMediaOut(baseUrl: string, row: FileRow): ProductMediaOut {
  return {
    ...common(row),
    service: "product_media",
    is_uploaded: row.isUploaded,
    created_at: row.createdAt.toISOString(),
    size_readable: sizeReadable(row.size),
    public_url: publicUrlOf(baseUrl, row),
  };
}

/** The FileRead variant for the row's service; public media carries a URL anyone can fetch. */
export function fileReadOut(baseUrl: string, row: FileRow): FileReadOut {
  const read = {
    ...common(row),
    service: row.service as FileService,
    is_uploaded: row.isUploaded,
    created_at: row.createdAt.toISOString(),
    size_readable: sizeReadable(row.size),
  };
  if (row.service === "downloadable") return { ...read, flagged_malicious_at: null };
  return { ...read, public_url: publicUrlOf(baseUrl, row) };
}

/** Polar's FileDownload: a downloadable with a short-lived signed URL its holder fetches it at. */
export const fileDownloadSchema = z
  .object({
    ...fileCommon,
    flagged_malicious_at: nullableTimestamp,
    download: z
      .object({ url: z.string(), headers: z.record(z.string(), z.string()), expires_at: timestamp })
      .meta({ id: "S3DownloadURL" }),
  })
  .meta({ id: "FileDownload" });
export type FileDownloadOut = z.output<typeof fileDownloadSchema>;

export function fileDownloadOut(
  row: FileRow,
  download: FileDownloadOut["download"],
): FileDownloadOut {
  return {
    ...common(row),
    service: row.service as FileService,
    is_uploaded: row.isUploaded,
    created_at: row.createdAt.toISOString(),
    size_readable: sizeReadable(row.size),
    flagged_malicious_at: null,
    download,
  };
}

export interface UploadPartUrl {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
  url: string;
  expires_at: string;
  headers: Record<string, string>;
}

const uploadPartSchema = z
  .object({
    number: z.number().int(),
    chunk_start: z.number().int(),
    chunk_end: z.number().int(),
    checksum_sha256_base64: z.string().nullable(),
    url: z.string(),
    expires_at: timestamp,
    headers: z.record(z.string(), z.string()),
  })
  .meta({ id: "S3FileUploadPart" });

export const fileUploadSchema = z
  .object({
    ...fileCommon,
    upload: z
      .object({ id: z.string(), path: z.string(), parts: z.array(uploadPartSchema) })
      .meta({ id: "S3FileUploadMultipart" }),
  })
  .omit({ created_at: true })
  .meta({ id: "FileUpload" });
export type FileUploadOut = z.output<typeof fileUploadSchema>;

export function fileUploadOut(row: FileRow, parts: UploadPartUrl[]): FileUploadOut {
  return {
    ...common(row),
    upload: { id: row.uploadId, path: row.path, parts },
    is_uploaded: row.isUploaded,
    service: row.service as FileService,
    size_readable: sizeReadable(row.size),
  };
}
