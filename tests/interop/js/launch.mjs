// One launchpool launch through the public JS client (createAndRegisterLaunch), with its
// base URL at the launchops sandbox and its umi RPC at the sandbox's JSON-RPC.
//   node launch.mjs BASE_URL RPC_URL SECRET_KEY_JSON [DEPOSIT_START_ISO]
// Prints one JSON line: mint, genesis account, launch, token, signatures, milliseconds.
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { keypairIdentity } from '@metaplex-foundation/umi';
import { base58 } from '@metaplex-foundation/umi/serializers';
import { createAndRegisterLaunch } from '@metaplex-foundation/genesis';

const [baseUrl, rpcUrl, secretJson, depositStart] = process.argv.slice(2);
const umi = createUmi(rpcUrl, 'confirmed');
const keypair = umi.eddsa.createKeypairFromSecretKey(Uint8Array.from(JSON.parse(secretJson)));
umi.use(keypairIdentity(keypair));

const started = Date.now();
const result = await createAndRegisterLaunch(umi, { baseUrl }, {
  wallet: umi.identity.publicKey,
  launchType: 'launchpool',
  network: 'solana-mainnet',
  token: {
    name: 'Interop Token',
    symbol: 'IOP',
    image: 'https://gateway.irys.xyz/interop',
    description: 'Launched by the public JS client against the launchops sandbox.',
    externalLinks: { website: 'https://example.com', twitter: '@interop' },
  },
  launch: {
    launchpool: {
      tokenAllocation: 500_000_000,
      depositStartTime: depositStart ?? new Date(Date.now() + 86_400_000).toISOString(),
      raiseGoal: 250,
      raydiumLiquidityBps: 5000,
      fundsRecipient: umi.identity.publicKey,
    },
  },
});
console.log(JSON.stringify({
  mintAddress: result.mintAddress,
  genesisAccount: result.genesisAccount,
  launch: result.launch,
  token: result.token,
  signatures: result.signatures.map((s) => base58.deserialize(s)[0]),
  milliseconds: Date.now() - started,
}));
