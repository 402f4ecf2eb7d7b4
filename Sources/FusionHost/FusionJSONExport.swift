// FusionHost reads and writes JSON with FusionJSON, the codec the libraries use too (one
// parser to fuzz and fix); its API speaks `JSONValue`, so importing FusionHost brings it.
@_exported import FusionJSON
