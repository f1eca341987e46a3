// Examples for the commands whose --help is not written next to them (shared verbs built in loops).
// Every leaf command shows at least one example; a test walks the tree to keep it so.
import type { Command } from "commander";
import { examples } from "../lib/resource.ts";

const EXAMPLES: Record<string, string[]> = {
  "tokens delete": ["<token-id>"],
  "products update": ["<id> --name 'Pro (2025)'", "<id> --price 2000 --currency eur"],
  "products archive": ["<id>"],
  "products unarchive": ["<id>"],
  "meters update": ["<id> --name 'API tokens'"],
  "customers create": [
    "--email jane@example.com --name Jane",
    "--email ci@example.com --external-id user_42 --metadata plan=pro --json",
  ],
  "customers update": ["<id> --name 'Jane Doe'", "<id> --external-id user_42"],
  "customers state": ["<id>", "<id> --json | jq .active_subscriptions"],
  "discounts update": ["<id> --max-redemptions 200", "<id> --code SPRING25 --name 'Spring sale'"],
  "checkout-links create": ["--product <product-id> --label 'Pricing page'"],
  "subscriptions cancel": ["<id> --reason too_expensive"],
  "subscriptions uncancel": ["<id>"],
  "subscriptions revoke": ["<id> --comment 'refunded'"],
  "license-keys update": ["<id> --status disabled", "<id> --limit-activations 5"],
  "license-keys validate": ["TILL-XXXX-XXXX --org acme"],
  "webhooks endpoints enable": ["<id>"],
  "webhooks endpoints disable": ["<id>"],
  "webhooks endpoints reset-secret": ["<id> --json | jq -r .secret"],
  "webhooks redeliver": ["<event-id>"],
  "clock reset": ["", "--json"],
};

export function addExamples(program: Command): void {
  const walk = (cmd: Command, path: string[]): void => {
    const lines = EXAMPLES[path.join(" ")];
    if (lines) examples(cmd, ...lines);
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
}
