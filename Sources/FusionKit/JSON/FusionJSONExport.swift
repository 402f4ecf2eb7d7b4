// The JSON codec (JSONValue, JSONParser, JSONWriter, …) lives in FusionJSON, which the
// hosts share; feature authors and plugin packages keep reaching it through FusionKit.
@_exported import FusionJSON
