// Symmetric encryption for secrets the API must show again (checkout client secrets): AES-256-GCM
// under a key derived from AUTH_SECRET. Lookups use the token's SHA-256, never the ciphertext.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function createSecretBox(authSecret: string): SecretBox {
  // A KeyObject, so each seal and open does not import the raw key again.
  return boxOf(
    createSecretKey(createHash("sha256").update(`till:secret-box:${authSecret}`).digest()),
  );
}

/**
 * A box whose key is its `purpose`'s alone, derived from AUTH_SECRET with HKDF-SHA256: a value
 * sealed for one purpose does not open as another's.
 */
export function createPurposeBox(authSecret: string, purpose: string): SecretBox {
  return boxOf(
    createSecretKey(Buffer.from(hkdfSync("sha256", authSecret, "till", `till:${purpose}`, 32))),
  );
}

function boxOf(key: KeyObject): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `v1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined)
        throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(body, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}
