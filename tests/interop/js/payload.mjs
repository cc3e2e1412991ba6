// The public JS client's create body for each input: buildCreateLaunchPayload, with the
// agent's wallet derived as createLaunch derives it (deriveAssetSignerPda).
//   node payload.mjs '[{...CreateLaunchInput, launch: {firstBuyWallet: "<address>"}}, ...]'
// A firstBuyWallet is given by its address (the builder reads only its publicKey).
// Prints one JSON line: the bodies, in order.
import { createRequire } from 'module';
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { buildCreateLaunchPayload } from '@metaplex-foundation/genesis';

const require = createRequire(import.meta.url);
const { deriveAssetSignerPda } = require('@metaplex-foundation/genesis/dist/src/api/client.js');
const umi = createUmi('http://127.0.0.1:9');  // never called: the eddsa interface only

const bodies = JSON.parse(process.argv[2]).map((input) => {
  const launch = { ...input.launch };
  if (launch.firstBuyWallet) launch.firstBuyWallet = { publicKey: launch.firstBuyWallet };
  const agentWallet = input.agent ? deriveAssetSignerPda(umi, input.agent.mint) : undefined;
  return buildCreateLaunchPayload({ ...input, launch, agentWallet });
});
console.log(JSON.stringify(bodies));
