import CFusionKit

/// Compile-time proof that every exported function has the exact type the header
/// declares: each line fails to compile if the Swift signature drifts from
/// include/fusionkit.h. (A test checks the other direction: that the header declares
/// nothing the library does not export.)
private func sameSignature<T>(_ declared: T, _ implemented: T) {}

private func checkHeaderConformance() {
    sameSignature(CFusionKit.fk_abi_version, FusionABI.fk_abi_version)
    sameSignature(CFusionKit.fk_library_version, FusionABI.fk_library_version)
    sameSignature(CFusionKit.fk_status_name, FusionABI.fk_status_name)
    sameSignature(CFusionKit.fk_last_error_message, FusionABI.fk_last_error_message)
    sameSignature(CFusionKit.fk_manifest, FusionABI.fk_manifest)
    sameSignature(CFusionKit.fk_manifest_summary, FusionABI.fk_manifest_summary)
    sameSignature(CFusionKit.fk_feature_manifest, FusionABI.fk_feature_manifest)
    sameSignature(CFusionKit.fk_free, FusionABI.fk_free)
    sameSignature(CFusionKit.fk_create, FusionABI.fk_create)
    sameSignature(CFusionKit.fk_destroy, FusionABI.fk_destroy)
    sameSignature(CFusionKit.fk_send, FusionABI.fk_send)
    sameSignature(CFusionKit.fk_state, FusionABI.fk_state)
    sameSignature(CFusionKit.fk_version, FusionABI.fk_version)
    sameSignature(CFusionKit.fk_state_patch, FusionABI.fk_state_patch)
    sameSignature(CFusionKit.fk_state_into, FusionABI.fk_state_into)
    sameSignature(CFusionKit.fk_send_and_read, FusionABI.fk_send_and_read)
    sameSignature(CFusionKit.fk_send_and_read_call, FusionABI.fk_send_and_read_call)
    sameSignature(CFusionKit.fk_subscribe, FusionABI.fk_subscribe)
    sameSignature(CFusionKit.fk_unsubscribe, FusionABI.fk_unsubscribe)
    sameSignature(CFusionKit.fk_create_with_options, FusionABI.fk_create_with_options)
    sameSignature(CFusionKit.fk_advance_clock, FusionABI.fk_advance_clock)
    sameSignature(CFusionKit.fk_pending, FusionABI.fk_pending)
    sameSignature(CFusionKit.fk_next_wake, FusionABI.fk_next_wake)
    sameSignature(CFusionKit.fk_checkpoint, FusionABI.fk_checkpoint)
    sameSignature(CFusionKit.fk_restart_effects, FusionABI.fk_restart_effects)
    sameSignature(CFusionKit.fk_set_request_handler, FusionABI.fk_set_request_handler)
    sameSignature(CFusionKit.fk_poll_request, FusionABI.fk_poll_request)
    sameSignature(CFusionKit.fk_respond, FusionABI.fk_respond)
    sameSignature(CFusionKit.fk_fail_request, FusionABI.fk_fail_request)
    sameSignature(CFusionKit.fk_history, FusionABI.fk_history)
    sameSignature(CFusionKit.fk_goto, FusionABI.fk_goto)
    sameSignature(CFusionKit.fk_limit, FusionABI.fk_limit)
}
