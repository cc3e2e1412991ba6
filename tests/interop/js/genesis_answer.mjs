// The sandbox's create answer and accounts, read with the public JS client's own code:
// each transaction's Genesis instructions decoded with the generated instruction data
// serializers (by discriminator), and the genesis account and buckets fetched over
// JSON-RPC with the generated account fetchers.
//   node genesis_answer.mjs @FILE   (FILE: {"rpc", "transactions": [base64], "fetch":
//                                    [["GenesisAccountV2" | "<Kind>", address], ...],
//                                    "graduated": [curve bucket address, ...]})
// Prints one JSON line: {"transactions": [[{program, name, args, accounts}]], "fetched": [...],
// "graduated": [the client's isGraduated of each curve]}.
import { readFileSync } from 'fs';
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { publicKey } from '@metaplex-foundation/umi';
import * as genesis from '@metaplex-foundation/genesis';

const GENESIS = 'GNS1S5J5AspKXgpjz6SvKL66kPaKWAhaGRhCqPRxii2B';
// An agent's launch wraps each Genesis instruction in an mpl-core Execute (discriminator
// 31, then the inner data's u32 length and the data; accounts: asset, collection, asset
// signer, payer, authority, System, the inner program, then the inner accounts).
const MPL_CORE = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
const EXECUTE = 31;
const arg = process.argv[2];
const input = JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg);
const umi = createUmi(input.rpc ?? 'http://127.0.0.1:9', 'confirmed');

// Discriminator -> instruction name, from the client's exports.
const names = {};
for (const [key, value] of Object.entries(genesis)) {
  const match = key.match(/^(\w+)InstructionDiscriminator$/);
  if (match && typeof value === 'number') names[value] = names[value] ?? match[1];
}

function plain(value) {
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Array.from(v) : v)));
}

function decode(base64) {
  const tx = umi.transactions.deserialize(Uint8Array.from(Buffer.from(base64, 'base64')));
  const keys = tx.message.accounts;
  return tx.message.instructions.map((ix) => {
    let program = keys[ix.programIndex];
    let accounts = ix.accountIndexes.map((i) => keys[i] ?? null);
    let data = ix.data;
    let wrappedBy = null;
    if (program === MPL_CORE && data[0] === EXECUTE && accounts[6] === GENESIS) {
      const size = Buffer.from(data.slice(1, 5)).readUInt32LE(0);
      wrappedBy = { asset: accounts[0], signer: accounts[2], authority: accounts[4] };
      program = GENESIS;
      data = data.slice(5, 5 + size);
      accounts = accounts.slice(7);
    }
    if (program !== GENESIS) return { program, name: null, accounts };
    const name = names[data[0]];
    const serializer = genesis[`get${name[0].toUpperCase()}${name.slice(1)}InstructionDataSerializer`]();
    const [args] = serializer.deserialize(data);
    return { program, name, args: plain(args), accounts, wrappedBy };
  });
}

const transactions = (input.transactions ?? []).map(decode);
const fetched = [];
for (const [kind, address] of input.fetch ?? []) {
  const account = await genesis[`fetch${kind}`](umi, publicKey(address));
  fetched.push(plain(account));
}
const graduated = [];
for (const address of input.graduated ?? []) {
  const curve = await genesis.fetchBondingCurveBucketV2(umi, publicKey(address));
  graduated.push(await genesis.isGraduated(umi, curve));
}
console.log(JSON.stringify({ transactions, fetched, graduated }));
