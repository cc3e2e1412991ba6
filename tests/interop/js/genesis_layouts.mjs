// The Genesis program's layouts as the public JS client writes them, for
// launchops/genesis to match byte for byte and account by account.
//   node genesis_layouts.mjs '[{...case}, ...]'    (or '@<file>' holding that JSON)
// A case is one of:
//   {"ix": name, "args": {...}, "accounts": {role: address}, "signers": [role, ...],
//    "payer": address, "identity": address}: the instruction the client's own builder
//    makes, `<name>(umi, {...accounts, ...args}).getInstructions()[0]`; the accounts in
//    `signers` are passed as signers, the payer and identity are umi's
//   {"account": "GenesisAccountV2", "value": {...}}: get<Name>AccountDataSerializer()
//   {"metadata": {...}}: mpl-token-metadata's getMetadataAccountDataSerializer()
//   {"pda": "findLaunchPoolBucketV2Pda", "seeds": {...}}: [address, bump] (a find...Pda
//    of the genesis client, else of mpl-token-metadata or mpl-toolbox)
//   {"raydium": {"baseMint", "bucket", "options"}}: deriveRaydiumPDAsV2's accounts, by name
//   {"errors": true}: every custom error of the program, [code, name, message]
//   {"discriminators": true}: every instruction's discriminator, by name
// In the JSON, {"$big": "123"} is a BigInt and {"$bytes": "00ff"} a Uint8Array.
// Prints one JSON line: the results, in order.
import { readFileSync } from 'fs';
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import {
  createNoopSigner, publicKey, signerIdentity, signerPayer,
} from '@metaplex-foundation/umi';
import * as genesis from '@metaplex-foundation/genesis';
import * as metadata from '@metaplex-foundation/mpl-token-metadata';
import * as toolbox from '@metaplex-foundation/mpl-toolbox';

// Never called: the eddsa interface and the program ids only.
const umi = createUmi('http://127.0.0.1:9').use(toolbox.mplToolbox())
  .use(metadata.mplTokenMetadata()).use(genesis.genesis());

const revive = (key, value) => {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if ('$big' in value) return BigInt(value.$big);
    if ('$bytes' in value) return Uint8Array.from(Buffer.from(value.$bytes, 'hex'));
  }
  return value;
};
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const signer = (address) => createNoopSigner(publicKey(address));

function instruction({ ix, args = {}, accounts = {}, signers = [], payer, identity }) {
  if (payer) umi.use(signerPayer(signer(payer)));
  if (identity ?? payer) umi.use(signerIdentity(signer(identity ?? payer), false));
  const input = { ...args };
  for (const [role, address] of Object.entries(accounts)) {
    input[role] = signers.includes(role) ? signer(address) : publicKey(address);
  }
  const built = genesis[ix](umi, input).getInstructions()[0];
  return {
    programId: built.programId,
    data: hex(built.data),
    accounts: built.keys.map((k) => [k.pubkey, k.isSigner, k.isWritable]),
  };
}

function account({ account: name, value }) {
  const data = genesis[`get${name}AccountDataSerializer`]().serialize(value);
  const size = genesis[`get${name}Size`];
  return { data: hex(data), size: size ? size() : null };
}

function errors() {
  const found = [];
  for (let code = 0; code < 1000; code += 1) {
    const error = genesis.getGenesisErrorFromCode(code, { name: 'genesis' });
    if (error) found.push([code, error.name, error.message.split('\n\nSource:')[0]]);
  }
  return found;
}

function discriminators() {
  const found = {};
  for (const [name, value] of Object.entries(genesis)) {
    if (name.endsWith('InstructionDiscriminator')) {
      found[name.slice(0, -'InstructionDiscriminator'.length)] = value;
    }
  }
  return found;
}

function run(c) {
  if (c.ix) return instruction(c);
  if (c.account) return account(c);
  if (c.metadata) {
    return { data: hex(metadata.getMetadataAccountDataSerializer().serialize(c.metadata)) };
  }
  if (c.pda) return (genesis[c.pda] ?? metadata[c.pda] ?? toolbox[c.pda])(umi, c.seeds ?? {});
  if (c.raydium) {
    const { baseMint, bucket, options } = c.raydium;
    const found = genesis.deriveRaydiumPDAsV2(umi, publicKey(baseMint), publicKey(bucket), {
      ...options, quoteMint: options.quoteMint && publicKey(options.quoteMint),
    });
    return Object.fromEntries(Object.entries(found).filter(([, v]) => typeof v === 'string'));
  }
  if (c.errors) return errors();
  if (c.discriminators) return discriminators();
  throw new Error(`no such case: ${JSON.stringify(c)}`);
}

const arg = process.argv[2];
const text = arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg;
console.log(JSON.stringify(JSON.parse(text, revive).map(run)));
