// Uploading a downloadable from the browser through the files API: declare it, PUT its one part to
// the signed URL the server hands back, then confirm with the part's ETag. One part is enough for
// what a seller picks in a form; the CLI splits large files.
import { api } from "./api.ts";
import type { FileRead } from "./types.ts";

interface FileUpload {
  id: string;
  upload: {
    id: string;
    path: string;
    parts: { number: number; url: string; headers: Record<string, string> }[];
  };
}

export async function uploadDownloadable(organizationId: string, file: File): Promise<FileRead> {
  const created = await api.post<FileUpload>("/v1/files/", {
    organization_id: organizationId,
    service: "downloadable",
    name: file.name,
    mime_type: file.type || "application/octet-stream",
    size: file.size,
    upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: file.size }] },
  });
  const part = created.upload.parts[0]!;
  const put = await fetch(part.url, { method: "PUT", headers: part.headers, body: file });
  const etag = put.headers.get("etag");
  if (!put.ok || !etag) throw new Error(`Uploading ${file.name} failed (HTTP ${put.status}).`);
  return api.post<FileRead>(`/v1/files/${created.id}/uploaded`, {
    id: created.upload.id,
    path: created.upload.path,
    parts: [{ number: 1, checksum_etag: etag }],
  });
}
