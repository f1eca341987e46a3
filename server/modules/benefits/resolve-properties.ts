// The checks on benefit properties that zod cannot make: a meter or files of the same organization,
// a Discord guild token the bot can read. Kept apart from properties.ts so the request schemas stay
// free of services and other modules' schemas can import them without joining the service cycle.
import type { Db } from "../../../db/client.ts";
import { RequestValidationError } from "../../lib/errors.ts";
import { scopeOfResource } from "../../lib/org-scope.ts";
import { usableFiles } from "../files/service.ts";
import { findMeter } from "../meters/queries.ts";
import { guildIdOf } from "./discord.ts";
import type { BenefitPropertiesInput } from "./properties.ts";

const LOC = ["body", "properties"];

/** Checks what zod cannot and returns the properties as stored (and served). */
export async function resolveProperties(
  db: Db,
  secret: string,
  organizationId: string,
  input: BenefitPropertiesInput,
): Promise<Record<string, unknown>> {
  switch (input.type) {
    case "custom":
      return { note: input.properties.note ?? null };
    case "discord": {
      const guildId = guildIdOf(secret, input.properties.guild_token);
      if (!guildId)
        throw RequestValidationError.field(
          [...LOC, "guild_token"],
          "The guild token is invalid; connect the Discord server again to get a new one.",
        );
      return {
        guild_id: guildId,
        role_id: input.properties.role_id,
        kick_member: input.properties.kick_member,
        guild_token: input.properties.guild_token,
      };
    }
    case "github_repository":
      return { ...input.properties };
    case "downloadables": {
      const found = new Set(
        (
          await usableFiles(
            db,
            scopeOfResource({ organizationId }),
            input.properties.files,
            "downloadable",
          )
        ).map((f) => f.id),
      );
      const bad = input.properties.files.findIndex((id) => !found.has(id));
      if (bad >= 0)
        throw RequestValidationError.field(
          [...LOC, "files", bad],
          "File not found, not uploaded yet, or not a downloadable of this organization.",
        );
      return { archived: input.properties.archived, files: input.properties.files };
    }
    case "license_keys": {
      const p = input.properties;
      return {
        prefix: p.prefix ?? null,
        expires: p.expires ?? null,
        activations: p.activations ?? null,
        limit_usage: p.limit_usage ?? null,
      };
    }
    case "meter_credit": {
      const meter = await findMeter(
        db,
        scopeOfResource({ organizationId }),
        input.properties.meter_id,
      );
      if (!meter || meter.archivedAt)
        throw RequestValidationError.field(
          [...LOC, "meter_id"],
          "Meter not found in this organization.",
        );
      return { ...input.properties };
    }
  }
}
