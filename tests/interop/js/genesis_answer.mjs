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
    const program = keys[ix.programIndex];
    const accounts = ix.accountIndexes.map((i) => keys[i] ?? null);
    if (program !== GENESIS) return { program, name: null, accounts };
    const name = names[ix.data[0]];
    const serializer = genesis[`get${name[0].toUpperCase()}${name.slice(1)}InstructionDataSerializer`]();
    const [args] = serializer.deserialize(ix.data);
    return { program, name, args: plain(args), accounts };
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
