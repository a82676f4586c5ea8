// attnseq: the JavaScript face of the engine. Loads the WebAssembly core once, wraps its Embind
// handles in small classes that own them (dispose() deletes them), turns status objects into
// AttnseqError, and hands out copies of every array. Works in Node 18+, browsers and module Workers.
// The package's entry point, which only gathers the exports of its modules, one per job:
//   engine.js     loading: init(), the .wasm, the bytes of a checkpoint, diagnostics
//   handles.js    Model, Ensemble, Encoded, Decoder, EnsembleDecoder, Trainer; loadModel(), createTrainer()
//   pool.js       createPool() and Pool: batches on several cores (pool-worker.js is a pool's Worker)
//   options.js    option names and checks          text.js       text and id checks
//   alignment.js  alignment exports                errors.js     AttnseqError, ERROR_CODES
//   pronounce.js  pronounce(), the ARPAbet table   rpc.js        the Worker protocol
export { AttnseqError, ERROR_CODES } from './errors.js';
export { init, memoryStats, decodeOptions, buildInfo } from './engine.js';
export { loadModel, createTrainer, Model, Ensemble, createEnsemble, Trainer, Encoded, Decoder, EnsembleDecoder } from './handles.js';
export { MAX_WORKERS, createPool, Pool } from './pool.js';
export { alignmentToCSV, alignmentToJSON, alignmentToPharaoh } from './alignment.js';
export { ARPABET_IPA, toIPA, speaksARPAbet, splitWords, parseLexicon, lookUp, pronounce } from './pronounce.js';
