// N launchpool launches through the public JS client, one after another, each one's
// failure caught (a send that never landed): one JSON line per launch, ok or not, with its
// milliseconds and, when it failed, why. What bench/landing.py and bench/vs_js.py run.
//   node launch_each.mjs BASE_URL RPC_URL SECRET_KEY_JSON COUNT
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { keypairIdentity } from '@metaplex-foundation/umi';
import { createAndRegisterLaunch } from '@metaplex-foundation/genesis';

const [baseUrl, rpcUrl, secretJson, count] = process.argv.slice(2);
const umi = createUmi(rpcUrl, 'confirmed');
umi.use(keypairIdentity(umi.eddsa.createKeypairFromSecretKey(Uint8Array.from(JSON.parse(secretJson)))));
for (let i = 0; i < Number(count); i += 1) {
  const started = Date.now();
  try {
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
    console.log(JSON.stringify({ ok: true, mintAddress: result.mintAddress, milliseconds: Date.now() - started }));
  } catch (error) {
    const reason = String(error?.message ?? error).split('\n')[0].slice(0, 200);
    console.log(JSON.stringify({ ok: false, error: reason, milliseconds: Date.now() - started }));
  }
}
