import CFusionKit
import FusionKit

/// The registration line every plugin library writes once: a function with this
/// symbol name returning its `FusionLibrary`. Declared here without a body; the
/// linker binds it to the plugin's definition when the shared library is built.
@_silgen_name("fusionkit_library")
func pluginLibrary() -> FusionLibrary

/// The plugin's library, made once per process; it describes each feature on first use.
let exportedLibrary: FusionLibrary = pluginLibrary()

/// The optional functions of include/fusionkit.h ("Optional functions" there) that
/// this module exports: all of them. A test checks the list against the exports.
let optionalFunctions = [
    "fk_create_with_options", "fk_state_patch", "fk_state_into", "fk_send_and_read", "fk_send_and_read_call", "fk_advance_clock",
    "fk_pending", "fk_next_wake", "fk_checkpoint", "fk_restart_effects",
    "fk_set_request_handler", "fk_poll_request", "fk_respond", "fk_fail_request", "fk_history", "fk_goto",
    "fk_limit", "fk_manifest_summary", "fk_feature_manifest"
]

/// The manifest, built once: a library's features do not change while it is loaded.
let manifestBytes: [UInt8] = JSONWriter.serialize(
    exportedLibrary.manifest(abiVersion: Int(FK_ABI_VERSION), optionalFunctions: optionalFunctions))

/// The manifest without descriptions (fk_manifest_summary), built once.
let manifestSummaryBytes: [UInt8] = JSONWriter.serialize(
    exportedLibrary.manifestSummary(abiVersion: Int(FK_ABI_VERSION), optionalFunctions: optionalFunctions))

/// The exported feature called `name` (described on first use), or an error listing the
/// ones there are.
func exportedFeature(named name: String) throws(FusionError) -> FeatureDefinition {
    guard let definition = exportedLibrary.feature(named: name) ?? InjectedFault.feature(named: name) else {
        let known = exportedLibrary.featureSummaries.map(\.name).joined(separator: ", ")
        throw FusionError(.unknownFeature, "unknown feature \"\(name)\"; this library has: \(known)")
    }
    return definition
}
