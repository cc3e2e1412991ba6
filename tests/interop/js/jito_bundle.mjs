// A bundle through Jito's own JS client (jito-js-rpc), unchanged, at the sandbox's block
// engine: its tip accounts read, a transfer plus a tip to one of them built with web3.js,
// sent as one bundle (base64), its in-flight status polled until Landed, then its status.
//   node jito_bundle.mjs BLOCK_ENGINE_URL RPC_URL SECRET_KEY_JSON
// Prints one JSON line: bundle id, tip account, in-flight status, bundle status.
import { JitoJsonRpcClient } from 'jito-js-rpc';
import {
  Connection, Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction,
} from '@solana/web3.js';

const [engineUrl, rpcUrl, secretJson] = process.argv.slice(2);
const jito = new JitoJsonRpcClient(engineUrl);
const connection = new Connection(rpcUrl, 'confirmed');
const payer = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(secretJson)));

const tipAccount = new PublicKey(await jito.getRandomTipAccount());
const { blockhash } = await connection.getLatestBlockhash('confirmed');
const sign = (instructions) => {
  const message = new TransactionMessage({
    payerKey: payer.publicKey, recentBlockhash: blockhash, instructions,
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  return Buffer.from(tx.serialize()).toString('base64');
};
const moved = Keypair.generate().publicKey;
const bundle = [
  sign([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: moved, lamports: 1_000_000 })]),
  sign([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: tipAccount, lamports: 10_000 })]),
];
const sent = await jito.sendBundle([bundle, { encoding: 'base64' }]);
if (sent.error) throw new Error(JSON.stringify(sent.error));
const bundleId = sent.result;
const status = await jito.confirmInflightBundle(bundleId, 60_000);
const inflight = await jito.getInFlightBundleStatuses([[bundleId]]);
console.log(JSON.stringify({
  bundleId,
  tipAccount: tipAccount.toBase58(),
  moved: moved.toBase58(),
  inflight: inflight.result.value[0],
  status,
}));
