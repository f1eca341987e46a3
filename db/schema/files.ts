// Files uploaded by sellers (product media, downloadables, avatars): the row records the upload plan
// (parts) until the client confirms the upload and till has verified the checksums.
import { sql } from "drizzle-orm";
import { boolean, bigint, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.ts";
import { createdAt, id, modifiedAt, tstz } from "./columns.ts";

export interface FileUploadPart {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
  /** Set when the part has been received: its MD5 (the part's ETag) and its size. */
  etag?: string;
  size?: number;
}

export const files = pgTable(
  "files",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    service: text("service").notNull(),
    name: text("name").notNull(),
    path: text("path").notNull(),
    mimeType: text("mime_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    version: text("version"),
    storageVersion: text("storage_version"),
    checksumEtag: text("checksum_etag"),
    /** The checksum the client declared at creation, checked when the upload completes. */
    declaredSha256Base64: text("declared_sha256_base64"),
    checksumSha256Base64: text("checksum_sha256_base64"),
    checksumSha256Hex: text("checksum_sha256_hex"),
    lastModifiedAt: tstz("last_modified_at"),
    uploadId: text("upload_id").notNull(),
    parts: jsonb("parts").$type<FileUploadPart[]>().notNull().default(sql`'[]'::jsonb`),
    isUploaded: boolean("is_uploaded").notNull().default(false),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: tstz("deleted_at"),
  },
  (t) => [index("files_org_created_idx").on(t.organizationId, t.createdAt)],
);
