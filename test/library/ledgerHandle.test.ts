import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { startLibrary } from './libraryKit.js';

// Every ledger method takes one request object naming its owner, and `{ tx }` second.

let lib: Awaited<ReturnType<typeof startLibrary<[]>>>;

beforeAll(async () => {
  lib = await startLibrary([]);
});
afterAll(async () => {
  await lib?.close();
});

const transfer = (id: string, amount: number) => ({
  ownerId: 'shop',
  id,
  debitAccount: 'customer:1',
  creditAccount: 'revenue',
  amount,
  currency: 'EUR',
});

describe('the ledger handle', () => {
  it('reads a transfer, a balance and entries by request objects naming the owner', async () => {
    const { transfer: first } = await lib.onejob.ledger.createTransfer(transfer('t-1', 500));
    const ledger = lib.onejob.ledger;
    expect(await ledger.getTransfer({ ownerId: 'shop', id: 't-1' })).toEqual(first);
    const balance = await ledger.getBalance({ ownerId: 'shop', account: 'revenue' });
    expect([balance.balance, balance.credits, balance.debits]).toEqual([500, 500, 0]);
    const before = await ledger.getBalance({ ownerId: 'shop', account: 'revenue', asOf: first.recordedAt });
    await ledger.createTransfer(transfer('t-2', 200));
    const entries = await ledger.listEntries({ ownerId: 'shop', account: 'revenue', limit: 1 });
    expect(entries.items.map((e) => e.transferId)).toEqual(['t-1']);
    const rest = await ledger.listEntries({
      ownerId: 'shop',
      account: 'revenue',
      cursor: entries.nextCursor,
    });
    expect(rest.items.map((e) => e.transferId)).toEqual(['t-2']);
    // asOf pins what was recorded by then: the later transfer is not in it.
    expect(before.balance).toBe(500);
    expect(
      (await ledger.listEntries({ ownerId: 'shop', account: 'revenue', asOf: first.recordedAt })).items,
    ).toHaveLength(1);
  });

  it("another owner's transfer and account are not found", async () => {
    const ledger = lib.onejob.ledger;
    await expect(ledger.getTransfer({ ownerId: 'other', id: 't-1' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'transfer_not_found'),
    );
    await expect(ledger.getBalance({ ownerId: 'other', account: 'revenue' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'account_not_found'),
    );
    await expect(ledger.listEntries({ ownerId: 'other', account: 'revenue' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'account_not_found'),
    );
  });

  it("reads with { tx } see the caller's uncommitted transfer; the rollback leaves nothing", async () => {
    const ledger = lib.onejob.ledger;
    const client = await lib.onejob.pool.connect();
    try {
      await client.query('BEGIN');
      await ledger.createTransfer({ ...transfer('t-tx', 70), creditAccount: 'tips' }, { tx: client });
      expect((await ledger.getTransfer({ ownerId: 'shop', id: 't-tx' }, { tx: client })).amount).toBe(70);
      expect((await ledger.getBalance({ ownerId: 'shop', account: 'tips' }, { tx: client })).balance).toBe(
        70,
      );
      expect(
        (await ledger.listEntries({ ownerId: 'shop', account: 'tips' }, { tx: client })).items,
      ).toHaveLength(1);
      await ledger.reverseTransfer(
        { ownerId: 'shop', transferId: 't-tx', id: 't-tx-back', reason: 'refund' },
        { tx: client },
      );
      expect((await ledger.getBalance({ ownerId: 'shop', account: 'tips' }, { tx: client })).balance).toBe(0);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await expect(ledger.getTransfer({ ownerId: 'shop', id: 't-tx' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'transfer_not_found'),
    );
  });

  it("a pending transfer and its post join the caller's transaction; the rollback leaves no hold and no transfer", async () => {
    const ledger = lib.onejob.ledger;
    const client = await lib.onejob.pool.connect();
    try {
      await client.query('BEGIN');
      const { pendingTransfer } = await ledger.createPendingTransfer(
        { ...transfer('auth-tx', 900), creditAccount: 'held-tips' },
        { tx: client },
      );
      expect(pendingTransfer.status).toBe('pending');
      expect(
        await ledger.getBalance({ ownerId: 'shop', account: 'held-tips' }, { tx: client }),
      ).toMatchObject({
        balance: 0,
        heldCredits: 900,
      });
      const { pendingTransfer: posted } = await ledger.postPendingTransfer(
        { ownerId: 'shop', id: 'auth-tx', amount: 600 },
        { tx: client },
      );
      expect(posted).toMatchObject({ status: 'posted', postedAmount: 600 });
      expect((await ledger.getTransfer({ ownerId: 'shop', id: 'auth-tx' }, { tx: client })).amount).toBe(600);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    await expect(ledger.getPendingTransfer({ ownerId: 'shop', id: 'auth-tx' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'pending_transfer_not_found'),
    );
    await expect(ledger.getTransfer({ ownerId: 'shop', id: 'auth-tx' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'transfer_not_found'),
    );
  });

  it('a void through the handle releases the hold once; a post after it is pending_transfer_already_resolved', async () => {
    const ledger = lib.onejob.ledger;
    await ledger.createPendingTransfer(transfer('auth-void', 40));
    expect(
      (await ledger.voidPendingTransfer({ ownerId: 'shop', id: 'auth-void', reason: 'no' })).replayed,
    ).toBe(false);
    expect((await ledger.voidPendingTransfer({ ownerId: 'shop', id: 'auth-void' })).replayed).toBe(true);
    await expect(ledger.postPendingTransfer({ ownerId: 'shop', id: 'auth-void' })).rejects.toSatisfy((e) =>
      isOnejobError(e, 'pending_transfer_already_resolved'),
    );
  });
});
