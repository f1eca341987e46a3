// Where file bytes live. Local disk under the data dir for now; an S3-compatible store can implement
// the same interface later. Parts are written as they arrive and joined when the upload completes.
import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface StoredPart {
  size: number;
  md5Hex: string;
  sha256Base64: string;
}

export interface StoredObject {
  size: number;
  sha256: Buffer;
}

export class PartTooLarge extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`part larger than ${limit} bytes`);
    this.limit = limit;
  }
}

export interface FileStorage {
  /** Streams one part of an upload to storage; stops with PartTooLarge past maxBytes. */
  writePart(
    uploadKey: string,
    number: number,
    body: Readable,
    maxBytes: number,
  ): Promise<StoredPart>;
  /** Joins the parts, in the order given, into the object at key, then drops the parts. */
  complete(uploadKey: string, numbers: number[], key: string): Promise<StoredObject>;
  /** The object's bytes, or null when it does not exist. */
  open(key: string): Promise<{ size: number; stream: Readable } | null>;
  remove(key: string, uploadKey: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9-]+(\/[A-Za-z0-9-]+)*$/;

export function localDiskStorage(root: string): FileStorage {
  // Keys are built from UUIDs only, never from user-supplied names, so they cannot escape the root.
  const resolve = (...parts: string[]) => {
    for (const p of parts) if (!SAFE_KEY.test(p)) throw new Error(`unsafe storage key ${p}`);
    return path.join(root, ...parts);
  };
  return {
    async writePart(uploadKey, number, body, maxBytes) {
      const dir = resolve("uploads", uploadKey);
      await mkdir(dir, { recursive: true });
      const target = path.join(dir, String(number));
      const tmp = `${target}.${randomUUID()}.tmp`;
      const md5 = createHash("md5");
      const sha256 = createHash("sha256");
      let size = 0;
      try {
        await pipeline(
          body,
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              if (size > maxBytes) throw new PartTooLarge(maxBytes);
              md5.update(chunk);
              sha256.update(chunk);
              yield chunk;
            }
          },
          createWriteStream(tmp),
        );
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return { size, md5Hex: md5.digest("hex"), sha256Base64: sha256.digest("base64") };
    },

    async complete(uploadKey, numbers, key) {
      const target = resolve("objects", key);
      await mkdir(path.dirname(target), { recursive: true });
      // Its own temporary file: two completions of one key at once (an invoice asked for twice) must
      // not write into each other's; the rename makes one of them the object.
      const tmp = `${target}.${randomUUID()}.tmp`;
      const sha256 = createHash("sha256");
      let size = 0;
      const out = createWriteStream(tmp);
      try {
        for (const n of numbers) {
          await pipeline(
            createReadStream(path.join(resolve("uploads", uploadKey), String(n))),
            async function* (source: AsyncIterable<Buffer>) {
              for await (const chunk of source) {
                size += chunk.length;
                sha256.update(chunk);
                yield chunk;
              }
            },
            out,
            { end: false },
          );
        }
        await new Promise<void>((ok, fail) =>
          out.end((err?: Error | null) => (err ? fail(err) : ok())),
        );
        await rename(tmp, target);
        await rm(resolve("uploads", uploadKey), { recursive: true, force: true });
      } catch (err) {
        out.destroy();
        await rm(tmp, { force: true });
        throw err;
      }
      return { size, sha256: sha256.digest() };
    },

    async open(key) {
      const file = resolve("objects", key);
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) return null;
      return { size: info.size, stream: createReadStream(file) };
    },

    async remove(key, uploadKey) {
      await rm(resolve("objects", key), { force: true });
      await rm(resolve("uploads", uploadKey), { recursive: true, force: true });
    },
  };
}
