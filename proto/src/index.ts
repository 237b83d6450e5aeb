// The generated descriptors and message types of cuzk.v1, plus the proto file's location.
export * from "./gen/cuzk/v1/proving_pb.js";
