// At run time, whoever opens a transaction owns it: a Tx that reaches inTransaction typed as a plain
// Db (which the types cannot see) is refused before anything runs, and the outer transaction's work
// rolls back with the error instead of half of it committing through a savepoint.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../test/helpers/db.ts";
import { type Db, inTransaction, queryRows } from "./client.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
  await t.database.db.execute(sql`create table tx_probe (n int)`);
});
afterAll(() => t?.dispose());

const count = async () =>
  Number(
    (await queryRows<{ n: string }>(t.database.db, sql`select count(*) as n from tx_probe`))[0]!.n,
  );

describe("inTransaction", () => {
  it("refuses a transaction handed back to it as a plain Db, and the outer work rolls back", async () => {
    const step = (db: Db) =>
      inTransaction(db, (inner) => inner.execute(sql`insert into tx_probe values (2)`));
    await expect(
      inTransaction(t.database.db, async (tx) => {
        await tx.execute(sql`insert into tx_probe values (1)`);
        await step(tx);
      }),
    ).rejects.toThrow("inTransaction inside a transaction");
    expect(await count()).toBe(0);
  });

  it("commits what runs in the Tx it hands out", async () => {
    await inTransaction(t.database.db, (tx) => tx.execute(sql`insert into tx_probe values (3)`));
    expect(await count()).toBe(1);
  });
});
