// One bonding-curve launch through the public JS client (createAndRegisterLaunch), with a
// first buy by another wallet (an extra signer), against the launchops sandbox.
//   node bonding.mjs BASE_URL RPC_URL CREATOR_SECRET_JSON BUYER_SECRET_JSON
// Prints one JSON line: mint, genesis account, launch, token, signatures.
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { createSignerFromKeypair, keypairIdentity } from '@metaplex-foundation/umi';
import { base58 } from '@metaplex-foundation/umi/serializers';
import { createAndRegisterLaunch } from '@metaplex-foundation/genesis';

const [baseUrl, rpcUrl, creatorJson, buyerJson] = process.argv.slice(2);
const umi = createUmi(rpcUrl, 'confirmed');
const fromJson = (text) => umi.eddsa.createKeypairFromSecretKey(Uint8Array.from(JSON.parse(text)));
umi.use(keypairIdentity(fromJson(creatorJson)));
const buyer = createSignerFromKeypair(umi, fromJson(buyerJson));

const result = await createAndRegisterLaunch(umi, { baseUrl }, {
  wallet: umi.identity.publicKey,
  launchType: 'bondingCurve',
  network: 'solana-mainnet',
  token: { name: 'Interop Curve', symbol: 'ICRV', image: 'https://gateway.irys.xyz/curve' },
  launch: { firstBuyAmount: 0.75, firstBuyWallet: buyer },
});
console.log(JSON.stringify({
  mintAddress: result.mintAddress,
  genesisAccount: result.genesisAccount,
  launch: result.launch,
  token: result.token,
  signatures: result.signatures.map((s) => base58.deserialize(s)[0]),
}));
