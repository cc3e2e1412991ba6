// N launchpool launches through the public JS client, one after another (as its CLI runs
// them), in one node process. Prints one JSON line per launch with its milliseconds.
//   node launch_many.mjs BASE_URL RPC_URL SECRET_KEY_JSON COUNT
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { keypairIdentity } from '@metaplex-foundation/umi';
import { createAndRegisterLaunch } from '@metaplex-foundation/genesis';

const [baseUrl, rpcUrl, secretJson, count] = process.argv.slice(2);
const umi = createUmi(rpcUrl, 'confirmed');
umi.use(keypairIdentity(umi.eddsa.createKeypairFromSecretKey(Uint8Array.from(JSON.parse(secretJson)))));
for (let i = 0; i < Number(count); i += 1) {
  const started = Date.now();
  const result = await createAndRegisterLaunch(umi, { baseUrl }, {
    wallet: umi.identity.publicKey,
    launchType: 'launchpool',
    network: 'solana-mainnet',
    token: { name: `JS Token ${i}`, symbol: `JS${i}`, image: 'https://gateway.irys.xyz/js' },
    launch: {
      launchpool: {
        tokenAllocation: 500_000_000,
        depositStartTime: new Date(Date.now() + 86_400_000).toISOString(),
        raiseGoal: 250,
        raydiumLiquidityBps: 5000,
        fundsRecipient: umi.identity.publicKey,
      },
    },
  });
  console.log(JSON.stringify({ mintAddress: result.mintAddress, milliseconds: Date.now() - started }));
}
