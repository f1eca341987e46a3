// What granting and revoking mean per benefit type. Local types (custom, license_keys,
// downloadables, meter_credit) change only till's rows and run inside the job's transaction; remote
// types (discord, github_repository) call a third party first, outside any transaction, and the job
// records the outcome afterwards. Each returns the grant's new properties.
//
// The customer's Discord/GitHub identity: the `account_id` in the grant's properties when set, else
// the account a till user with the customer's email linked through social sign-in (better-auth's
// `account` table, provider "discord" or "github"). Discord's member-add also needs that user's
// OAuth access token (scope guilds.join), which only the linked account has.
import type { Db, Tx } from "../../../db/client.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  issueLicenseKey,
  revokeLicenseKey,
  type LicenseKeyBenefit,
} from "../license-keys/service.ts";
import { addDiscordMember, removeDiscordMember, type DiscordConfig } from "./discord.ts";
import { addCollaborator, githubLogin, removeCollaborator, type GitHubConfig } from "./github.ts";
import { GrantFailure } from "./http.ts";
import { creditUnits } from "./meter-repository.ts";
import { linkedAccount, linkedAccounts, type GrantRow } from "./repository.ts";

export interface GrantsConfig {
  discord: DiscordConfig;
  github: GitHubConfig;
}

export interface StrategyInput<D extends Db = Db> {
  db: D;
  clock: Clock;
  config: GrantsConfig;
  grant: GrantRow;
  benefit: { id: string; type: string; properties: Record<string, unknown> };
  customerEmail: string;
}

/**
 * A local strategy writes in the grant's transaction; a remote one calls another service, so it
 * runs before that transaction opens and gets the pool.
 */
export type Strategy =
  | {
      remote: false;
      grant(i: StrategyInput<Tx>): Promise<Record<string, unknown>>;
      revoke(i: StrategyInput<Tx>): Promise<Record<string, unknown>>;
    }
  | {
      remote: true;
      grant(i: StrategyInput): Promise<Record<string, unknown>>;
      revoke(i: StrategyInput): Promise<Record<string, unknown>>;
    };

const custom: Strategy = { remote: false, grant: async () => ({}), revoke: async () => ({}) };

const licenseKeys: Strategy = {
  remote: false,
  grant: (i) => issueLicenseKey(i.db, i.clock, i.grant, i.benefit.properties as LicenseKeyBenefit),
  async revoke(i) {
    await revokeLicenseKey(i.db, i.clock, i.grant.id);
    return i.grant.properties;
  },
};

const downloadables: Strategy = {
  remote: false,
  // Files archived on the benefit are not handed to new grants; grants that already list them keep them.
  async grant(i) {
    const p = i.benefit.properties as { files: string[]; archived?: Record<string, boolean> };
    const had = new Set((i.grant.properties.files as string[] | undefined) ?? []);
    return { files: p.files.filter((f) => !p.archived?.[f] || had.has(f)) };
  },
  revoke: async (i) => i.grant.properties,
};

const meterCredit: Strategy = {
  remote: false,
  async grant(i) {
    const p = i.benefit.properties as { units: number; rollover: boolean; meter_id: string };
    await creditUnits(i.db, {
      organizationId: i.grant.organizationId,
      customerId: i.grant.customerId,
      meterId: p.meter_id,
      units: p.units,
      rollover: p.rollover,
      now: i.clock.now(),
    });
    // What was credited, so a revoke takes back exactly that even if the benefit changes later.
    return { meter_id: p.meter_id, units: p.units, rollover: p.rollover };
  },
  async revoke(i) {
    const p = i.grant.properties as { meter_id?: string; units?: number; rollover?: boolean };
    if (p.meter_id && p.units) {
      await creditUnits(i.db, {
        organizationId: i.grant.organizationId,
        customerId: i.grant.customerId,
        meterId: p.meter_id,
        units: -p.units,
        rollover: p.rollover ?? false,
        now: i.clock.now(),
      });
    }
    return { ...p, units: 0 };
  },
};

async function identity(i: StrategyInput, provider: "discord" | "github") {
  const own = i.grant.properties.account_id;
  const linked = await linkedAccount(i.db, i.customerEmail, provider);
  if (typeof own === "string" && own) {
    // The account chosen in the portal may not be the latest linked one: its own token is used.
    const chosen = (await linkedAccounts(i.db, i.customerEmail, provider)).find(
      (a) => a.accountId === own,
    );
    return { accountId: own, accessToken: chosen?.accessToken ?? null };
  }
  if (!linked)
    throw new GrantFailure(
      `${provider}_account_not_linked`,
      `The customer has not linked a ${provider === "discord" ? "Discord" : "GitHub"} account: sign in to till with ${provider} using ${i.customerEmail}.`,
    );
  return linked;
}

const discord: Strategy = {
  remote: true,
  async grant(i) {
    const p = i.benefit.properties as { guild_id: string; role_id: string };
    const who = await identity(i, "discord");
    await addDiscordMember(i.config.discord, p.guild_id, p.role_id, who);
    // The customer moved the grant to another account (portal): the old one loses the role.
    const before = i.grant.properties as { guild_id?: string; granted_account_id?: string };
    if (before.granted_account_id && before.granted_account_id !== who.accountId)
      await removeDiscordMember(
        i.config.discord,
        before.guild_id ?? p.guild_id,
        p.role_id,
        before.granted_account_id,
        false,
      );
    return {
      account_id: (i.grant.properties.account_id as string | undefined) ?? null,
      guild_id: p.guild_id,
      role_id: p.role_id,
      granted_account_id: who.accountId,
    };
  },
  async revoke(i) {
    const granted = i.grant.properties as {
      guild_id?: string;
      role_id?: string;
      granted_account_id?: string;
    };
    const kick = Boolean((i.benefit.properties as { kick_member?: boolean }).kick_member);
    if (granted.guild_id && granted.role_id && granted.granted_account_id) {
      await removeDiscordMember(
        i.config.discord,
        granted.guild_id,
        granted.role_id,
        granted.granted_account_id,
        kick,
      );
    }
    return i.grant.properties;
  },
};

const github: Strategy = {
  remote: true,
  async grant(i) {
    const p = i.benefit.properties as {
      repository_owner: string;
      repository_name: string;
      permission: string;
    };
    const who = await identity(i, "github");
    const login = await githubLogin(i.config.github, who.accountId);
    await addCollaborator(
      i.config.github,
      p.repository_owner,
      p.repository_name,
      login,
      p.permission,
    );
    // The customer moved the grant to another account (portal): the old one loses access.
    const before = i.grant.properties as { granted_account_id?: string };
    if (before.granted_account_id && before.granted_account_id !== login)
      await removeCollaborator(
        i.config.github,
        p.repository_owner,
        p.repository_name,
        before.granted_account_id,
      );
    return {
      account_id: (i.grant.properties.account_id as string | undefined) ?? null,
      repository_owner: p.repository_owner,
      repository_name: p.repository_name,
      permission: p.permission,
      granted_account_id: login,
    };
  },
  async revoke(i) {
    const g = i.grant.properties as {
      repository_owner?: string;
      repository_name?: string;
      granted_account_id?: string;
    };
    if (g.repository_owner && g.repository_name && g.granted_account_id)
      await removeCollaborator(
        i.config.github,
        g.repository_owner,
        g.repository_name,
        g.granted_account_id,
      );
    return i.grant.properties;
  },
};

export const STRATEGIES: Record<string, Strategy> = {
  custom,
  license_keys: licenseKeys,
  downloadables,
  meter_credit: meterCredit,
  discord,
  github_repository: github,
};
