"""Diagnostics for every stage: their types, their codes, and the messages users read.

A `SpecError` carries the spec path (``layers[1].trend.method``) and, where
known, the file position, so a problem found late in the pipeline still points
at the exact spot in the user's file; a `SpecWarning` is the same report about
a problem that does not stop compilation, and is no exception. Both carry a
stable code (``E451``, ``W401``) that `chartc explain` and docs/diagnostics.md
explain.

The messages live in one module per stage (`load`, `validate`, `parse`,
`data`, `check`, `limits`, `fit`, `translate`, `verify`, `render`,
`scene`, `commands`), each function declaring its code (`registry.code`); they are all
re-exported here, so ``from chartc import errors as msg; msg.field_not_found(...)``
reads any of them. Tests compare against the same functions.

May import: the standard library only (this is the bottom layer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from .registry import REGISTRY, RETIRED, Message, code, keep_code

PathKey = Union[str, int]
SpecPath = tuple  # tuple[PathKey, ...]: ("layers", 1, "trend", "method")

# How many diagnostics an aggregated error prints before "... and N more".
SHOWN_ERRORS = 3


def format_path(path: Sequence[PathKey]) -> str:
    """Render a spec path the way users write it: ``layers[1].trend.method``.

    The root is ``$``, as in JSON Path.
    """
    text = ""
    for key in path:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            key = str(key)
            plain = key.replace("_", "").replace("$", "").isalnum()
            text += (f".{key}" if text else key) if plain else f"[{key!r}]"
    return text or "$"


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based position in a spec file."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Diagnostic:
    """A report about a chart spec: its code, message, spec path, file position, hint and stage.

    Attributes:
        code: the stable code (``E451``), from the message (a `Message`) unless given.
        message: what is wrong, from a message function.
        path: the spec path, e.g. ``("layers", 1, "mark")``.
        location: the file position, or None when unknown.
        stage: the stage that found it ("schema", "check", "fit", ...).
        hint: what to do about it, or None.
        severity: "error" or "warning" (the class says which).
    """

    severity = "error"

    def __init__(
        self,
        message: str,
        path: Sequence[PathKey] = (),
        *,
        location: Location | None = None,
        stage: str = "",
        hint: str | None = None,
        code: str | None = None,
    ):
        self.message = message
        self.path = tuple(path)
        self.location = location
        self.stage = stage
        self.hint = hint
        self.code = code or getattr(message, "code", None)

    def diagnostic(self) -> str:
        """One line: ``FILE:LINE:COL: error[E451]: PATH: message (hint)``."""
        where = f"{self.location}: " if self.location else ""
        label = f"{self.severity}[{self.code}]" if self.code else self.severity
        text = f"{where}{label}: {format_path(self.path)}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text

    def __str__(self) -> str:
        return self.diagnostic()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.diagnostic()!r})"


class SpecError(Diagnostic, Exception):
    """A problem with a chart spec that stops compilation.

    An aggregate error (from `SpecError.collect`) keeps every problem in
    ``.errors`` and prints the first few.
    """

    def __init__(self, message: str, path: Sequence[PathKey] = (), **kwargs):
        Diagnostic.__init__(self, message, path, **kwargs)
        self.errors: list[SpecError] = [self]
        Exception.__init__(self, self.diagnostic())

    def __str__(self) -> str:
        lines = [e.diagnostic() for e in self.errors[:SHOWN_ERRORS]]
        if len(self.errors) > SHOWN_ERRORS:
            lines.append(f"... and {len(self.errors) - SHOWN_ERRORS} more")
        return "\n".join(lines)

    __repr__ = Exception.__repr__

    @classmethod
    def collect(cls, errors: Sequence["SpecError"]) -> "SpecError":
        """Fold several problems into one raisable error (order kept)."""
        if len(errors) == 1:
            return errors[0]
        first = errors[0]
        combined = cls(
            first.message, first.path, location=first.location,
            stage=first.stage, hint=first.hint, code=first.code,
        )
        combined.errors = list(errors)
        return combined


class SpecWarning(Diagnostic):
    """A problem that does not stop compilation (printed as ``warning[W401]:``); not an exception."""

    severity = "warning"


from .text import (  # noqa: E402  (after the types: the messages are re-exported)
    did_you_mean, or_list, quoted_list,
)
from .load import (  # noqa: E402  (after the types: the messages are re-exported)
    alias_bomb, alias_bomb_hint, bad_merge, bad_tagged_scalar, duplicate_key, duplicate_key_hint,
    forbidden_character, forbidden_character_hint, invalid_json, invalid_utf8, invalid_utf8_hint,
    invalid_yaml, key_not_string, key_not_string_hint, multiple_documents, multiple_documents_hint,
    non_finite_number, non_finite_number_hint, not_a_mapping, not_a_mapping_hint, number_out_of_range,
    recursive_alias, spec_is_directory, spec_not_found, spec_too_large, spec_too_large_hint, spec_unreadable,
    syntax_context_hint, tab_indentation, tab_indentation_hint, tab_not_allowed, tab_not_allowed_hint,
    too_deeply_nested, undefined_alias, undefined_alias_hint, unsupported_tag, unsupported_tag_hint,
    unsupported_yaml_version, unsupported_yaml_version_hint,
)
from .validate import (  # noqa: E402  (after the types: the messages are re-exported)
    allowed_keys, bad_pattern, channel_takes_no, channel_takes_no_hint, color_arguments, color_form_hint,
    color_hint, computed_style, computed_style_hint, constant_channel_hint, constant_channel_with, data_hint,
    data_one_source, data_two_sources, data_two_sources_hint, facet_channel_hint, facet_property_not_allowed,
    layer_needs_mark, layer_needs_mark_hint, mark_and_layers, mark_and_layers_hint, mark_and_trend,
    mark_property_hint, mark_property_not_for, markers_on_trend, markers_with_layers, missing_key,
    needs_one_of_keys, no_mark, no_mark_hint, not_a_color, not_one_of, out_of_bounds, schema_copy_stale,
    schema_copy_stale_hint, text_too_long, text_too_long_hint, unknown_key, unsafe_font, unsafe_font_hint,
    unsafe_text, unsafe_text_hint, unscaled_colors, unscaled_colors_hint, wrong_size, wrong_type,
    extent_ci_unsupported, extent_ci_unsupported_hint, trend_extent_ci, trend_extent_ci_hint,
    project_file_hint, project_file_invalid, unknown_preset, font_directory_hint, font_directory_missing,
)
from .validate import (  # noqa: E402  (selections: params and the conditions on them)
    param_bind, param_duplicate, param_on_trend, param_undefined, param_undefined_hint,
    condition_value_and_field, condition_value_and_field_hint, condition_field_without_value,
    condition_field_without_value_hint,
)
from .validate import (  # noqa: E402  (reshaping transforms: impute's options)
    impute_frame_unused, impute_frame_unused_hint, impute_sequence_too_long, impute_sequence_too_long_hint,
    impute_value_unused, impute_value_unused_hint,
)
from .validate import (  # noqa: E402  (lookup: a second source joined, its columns and keys)
    lookup_as_count, lookup_as_count_hint, lookup_columns_hint, lookup_duplicate_key, lookup_duplicate_key_hint,
    lookup_field_not_found, lookup_key_not_found, lookup_source,
)
from .validate import (  # noqa: E402  (window transforms)
    window_frame_hint, window_frame_order, window_op_needs_field, window_op_param,
)
from .parse import (  # noqa: E402  (after the types: the messages are re-exported)
    expression_arity, expression_array_hole, expression_assignment_hint, expression_bad_character,
    expression_bad_escape, expression_bad_number, expression_bad_regex, expression_bad_regex_flags,
    expression_duplicate_key, expression_event_name, expression_expected, expression_illegal_key,
    expression_length_of_integer, expression_not_a_function_name, expression_not_allowed, expression_nothing,
    expression_octal, expression_reserved_name, expression_too_deep, expression_trailing, expression_unclosed,
    expression_unknown_function, expression_unknown_name, expression_unterminated_string,
)
from .data import (  # noqa: E402  (after the types: the messages are re-exported)
    closest, data_cell_too_long, data_column_scrubbed, data_file_line, data_format_hint,
    data_damaged, data_glob_formats, data_glob_formats_hint, data_glob_no_match, data_glob_schemas,
    data_header_cell_too_long, data_header_too_wide, data_header_too_wide_hint, data_integers_hint,
    data_integers_rounded, data_long_cell_hint, data_needs_pyarrow, data_needs_pyarrow_hint, data_nested,
    data_nested_column, date_out_of_range, date_out_of_range_hint, rows_pulled_past_limit,
    rows_pulled_past_limit_hint, lookup_too_many_rows_hint, data_nested_hint, data_not_a_file,
    data_path_absolute, data_path_hint, data_path_outside, data_records_too_wide, data_row_number,
    data_scrubbed_hint, data_text_scrubbed, data_too_large, data_too_many_cells, data_too_many_cells_hint,
    data_unknown_format, data_unreadable, data_url,
    data_url_hint, empty_data, empty_data_hint, expression_throws, file_not_found, files_in_folder,
    rows_unknowable_parse_conflict, rows_unknowable_random, rows_unknowable_unparsed,
    rows_unknowable_unsupported,
    data_path_outside_hint,
    data_not_delimited, data_not_delimited_hint, data_not_utf8_line, data_not_utf8_line_hint, data_row_too_long,
    data_unclosed_quote, data_unclosed_quote_hint,
    density_unknowable, density_unknowable_hint, density_unsupported, density_unsupported_hint,
)
from .data import (  # noqa: E402  (the density transform)
    density_not_numeric, density_not_numeric_hint,
)
from .data import (  # noqa: E402  (tables passed from Python)
    table_plan_failed, table_stream_read, table_stream_read_hint,
)
from .data import (  # noqa: E402  (tables of the engine's catalog)
    catalog_flat_view_hint, catalog_no_engine, catalog_no_engine_hint, catalog_table_missing, catalog_table_unreadable,
    catalog_tables,
)
from .validate import (  # noqa: E402  (the density transform)
    density_bandwidth_negative, density_bandwidth_negative_hint, density_extent_empty,
)
from .check import (  # noqa: E402  (after the types: the messages are re-exported)
    available_columns, day_first_dates, day_first_dates_hint, expression_throws_hint, field_dropped,
    field_dropped_hint, field_hint, field_not_found, known_shapes, log_scale_hint, log_scale_non_positive,
    marker_absent, marker_unstyled, marker_unstyled_hint, not_dates, not_dates_hint, unknown_shape,
    facet_wrap_two_fields, facet_wrap_two_fields_hint, pow10_linear, pow10_linear_hint,
)
from .limits import (  # noqa: E402  (after the types: the messages are re-exported)
    too_many_cells_hint, too_many_marks, too_many_marks_hint, too_many_panels, too_many_panels_hint,
    arc_position_channel, arc_position_channel_hint, arc_without_theta, arc_without_theta_hint,
    polar_channel_not_for, polar_channel_not_for_hint, polar_channel_without_value,
    polar_channel_without_value_hint, too_many_rows_grouped_by_renderer, too_many_rows_grouped_by_renderer_hint,
)
from .limits import (  # noqa: E402  (the warm renderer's: commands/daemon.py)
    stat_mode, warm_folder_hint, warm_incompatible, warm_not_owned, warm_not_plain, warm_not_running,
    warm_not_started, warm_running, warm_shared, warm_started, warm_stopped, warm_unsupported,
)
from .fit import (  # noqa: E402  (after the types: the messages are re-exported)
    trend_band_conflict, trend_band_conflict_hint,
    trend_band_level, trend_band_level_hint, trend_band_too_few_points, trend_band_too_few_points_hint,
    trend_band_unsupported, trend_band_unsupported_hint, trend_bandwidth, trend_bandwidth_hint,
    trend_channel_derived, trend_channel_derived_hint, trend_channel_type, trend_channel_type_hint,
    trend_extent, trend_extent_axis, trend_extent_axis_hint, trend_extent_date, trend_extent_hint,
    trend_extent_misses_data, trend_extent_misses_data_hint, trend_extent_nonpositive,
    trend_extent_nonpositive_hint, trend_extent_text, trend_extent_text_hint, trend_facet_derived,
    trend_facet_derived_hint, trend_in_group, trend_in_panel, trend_label_differs_by_panel,
    trend_label_differs_by_panel_hint, trend_label_format, trend_label_format_hint, trend_label_placeholder,
    trend_label_placeholder_hint, trend_label_spec_too_large, trend_label_spec_too_large_hint,
    trend_label_too_long, trend_label_too_long_hint, trend_label_undefined, trend_label_undefined_hint,
    trend_log_on_log_axis, trend_log_on_log_axis_hint, trend_needs_xy, trend_nonpositive,
    trend_nonpositive_hint, trend_not_finite, trend_not_finite_hint, trend_not_numeric,
    trend_not_numeric_hint, trend_order_too_high, trend_order_too_high_hint, trend_poly_order,
    trend_poly_order_hint, trend_quad_order, trend_quad_order_hint, trend_rows_unknown,
    trend_rows_unknown_hint, trend_samples, trend_scale_exponent, trend_too_few_x, trend_too_few_x_hint,
    trend_too_many_rows, trend_too_many_rows_hint,
    trend_unknown_method, trend_unknown_scale, trend_unknown_space, trend_window, trend_window_hint,
    trend_x_span_subnormal, trend_x_span_subnormal_hint,
)
from .fit import (  # noqa: E402  (the statistics' messages)
    trend_ewm_decay, trend_ewm_decay_hint, trend_loess_band_interpolates, trend_loess_band_interpolates_hint,
    trend_loess_band_rows, trend_loess_band_rows_hint, trend_logistic_values, trend_logistic_values_hint, trend_not_converged,
    trend_parameter_bound, trend_parameter_choice, trend_parameter_unused, trend_robust_weighted,
    trend_robust_weighted_hint, trend_weight_field, trend_weight_nonpositive, trend_weight_nonpositive_hint,
    trend_weight_not_found,
)
from .translate import (  # noqa: E402  (after the types: the messages are re-exported)
    colors_merge_for_deficiency, colors_merge_for_deficiency_hint, colors_merge_in_grey, colors_merge_in_grey_hint,
    field_backslash, field_backslash_hint, math_nested_script, math_nested_script_hint, math_no_script_form,
    math_no_script_form_hint, math_unbalanced, math_unbalanced_hint, math_unknown_command,
    math_unknown_command_hint, vega_lite_invalid, vega_lite_invalid_hint,
)
from .verify import (  # noqa: E402  (after the types: the messages are re-exported)
    bad_number_format, bad_number_format_hint, image_url, image_url_hint, integer_range_hint,
    number_format_too_large, number_format_too_large_hint, render_limit, render_limit_hint, render_refused,
    render_refused_hint, render_refused_other_hint, render_text_too_long, too_many_bins, vega_lite_refused,
)
from .render import (  # noqa: E402  (after the types: the messages are re-exported)
    bundle_failed, pdf_not_reproducible, render_crashed, render_failed_hint, render_raised, render_timed_out,
    render_timeout_hint,
)
from .scene import (  # noqa: E402  (after the types: the messages are re-exported)
    axis_labels_blank, axis_labels_blank_hint, axis_labels_overlap, axis_labels_overlap_hint, facet_panel_empty,
    facet_panel_empty_hint, layer_drew_fewer, layer_drew_fewer_hint, legend_entries_identical,
    legend_entries_identical_hint, text_outside_view, text_outside_view_hint, text_truncated, text_truncated_hint,
    trend_over_nothing, trend_over_nothing_hint,
)
from .commands import (  # noqa: E402  (after the types: the messages are re-exported)
    build_locked, build_summary, chart_forced, chart_input_changed, chart_input_missing,
    chart_input_unreadable, chart_not_built, chart_rendered, chart_spec_moved, chart_tools_changed,
    check_failed, check_passed, compile_unwritable, diff_columns, diff_data_unreadable, diff_error,
    diff_fit_changed, diff_fit_presence, diff_fit_value, diff_git_failed, diff_no_git, diff_no_specs_folder,
    diff_not_a_repository, diff_output_only, diff_path_outside_repository, diff_renamed_from, diff_rows,
    diff_spec_unreadable, diff_summary, diff_text_only, diff_unknown_revision, diff_value_added,
    diff_value_changed, diff_value_removed, duplicate_output_stem, gallery_partly_written, gallery_unwritable,
    index_charts_changed, init_not_a_folder, init_schema_current, init_schema_is_source, init_schema_updated,
    init_schema_written, init_settings_configured, init_settings_exists, init_settings_written,
    leftover_removed, manifest_dataset_refused, manifest_duplicate_key, manifest_expected,
    manifest_hash_refused, manifest_key_missing, manifest_output_refused, manifest_path_absolute,
    manifest_path_not_normal, manifest_path_not_regular, manifest_path_outside, manifest_refused_hint,
    manifest_stem_refused, manifest_text_too_long, manifest_too_many, manifest_unreadable, new_file_exists,
    new_schema_written, new_written, output_leftover, output_missing, output_modified, output_not_built,
    output_orphaned, output_removed, output_stale, output_untracked, project_file_unwritable,
    reserved_output_stem, serve_bad_request_line, serve_build_crashed, serve_built, serve_changed,
    serve_head_too_large, serve_host_missing, serve_host_refused, serve_http_error, serve_listening,
    serve_port_unavailable, serve_problem_count, serve_request_failed, serve_stopped, serve_target_bad_escape,
    serve_target_control, serve_target_dot_segment, serve_target_not_a_path, serve_target_not_ascii,
    serve_target_not_utf8, serve_target_too_long, serve_watch_failed, toolchain_differs, unknown_code,
)
from .commands import (  # noqa: E402  (the Python API's and the notebook's)
    notebook_usage, notebook_variable_missing, table_and_source, table_and_source_hint, table_not_named,
    table_not_passed, table_not_passed_hint, table_type, table_type_hint, table_unreadable,
)

__all__ = [
    "Diagnostic", "Location", "Message", "PathKey", "REGISTRY", "RETIRED", "SHOWN_ERRORS", "SpecError",
    "SpecPath", "SpecWarning", "alias_bomb", "alias_bomb_hint", "allowed_keys", "available_columns",
    "bad_merge", "bad_number_format", "bad_number_format_hint", "bad_pattern", "bad_tagged_scalar",
    "build_locked", "build_summary", "bundle_failed", "catalog_flat_view_hint", "catalog_no_engine",
    "catalog_no_engine_hint",
    "catalog_table_missing", "catalog_table_unreadable", "catalog_tables", "channel_takes_no", "channel_takes_no_hint",
    "chart_forced", "chart_input_changed", "chart_input_missing", "chart_input_unreadable", "chart_not_built",
    "chart_rendered", "chart_spec_moved", "chart_tools_changed", "check_failed", "check_passed", "closest",
    "code", "color_arguments", "color_form_hint", "color_hint", "colors_merge_for_deficiency", "colors_merge_for_deficiency_hint", "colors_merge_in_grey",
    "colors_merge_in_grey_hint", "compile_unwritable", "computed_style",
    "computed_style_hint", "constant_channel_hint", "constant_channel_with", "data_cell_too_long",
    "data_column_scrubbed", "data_damaged", "data_file_line", "data_format_hint", "data_header_cell_too_long",
    "data_glob_formats", "data_glob_formats_hint", "data_glob_no_match", "data_glob_schemas",
    "data_header_too_wide", "data_header_too_wide_hint", "data_hint", "data_integers_hint",
    "data_integers_rounded", "data_long_cell_hint", "data_needs_pyarrow", "data_needs_pyarrow_hint", "data_nested",
    "date_out_of_range", "date_out_of_range_hint", "rows_pulled_past_limit", "rows_pulled_past_limit_hint",
    "lookup_too_many_rows_hint",
    "data_nested_column",
    "density_unknowable", "density_unknowable_hint", "density_unsupported", "density_unsupported_hint",
    "table_plan_failed", "table_stream_read", "table_stream_read_hint",
    "data_nested_hint", "data_not_a_file", "data_not_delimited", "data_not_delimited_hint", "data_not_utf8_line",
    "data_not_utf8_line_hint", "data_row_too_long", "data_unclosed_quote", "data_unclosed_quote_hint",
    "data_one_source", "data_path_absolute", "data_path_hint", "data_path_outside", "data_records_too_wide",
    "data_row_number", "data_scrubbed_hint", "data_text_scrubbed", "data_too_large", "data_too_many_cells",
    "data_too_many_cells_hint", "data_two_sources",
    "data_two_sources_hint", "data_unknown_format", "data_unreadable", "data_url", "data_url_hint",
    "day_first_dates", "day_first_dates_hint", "did_you_mean", "diff_columns", "diff_data_unreadable",
    "diff_error", "diff_fit_changed", "diff_fit_presence", "diff_fit_value", "diff_git_failed", "diff_no_git",
    "diff_no_specs_folder", "diff_not_a_repository", "diff_output_only", "diff_path_outside_repository",
    "diff_renamed_from", "diff_rows", "diff_spec_unreadable", "diff_summary", "diff_text_only",
    "diff_unknown_revision", "diff_value_added", "diff_value_changed", "diff_value_removed", "duplicate_key",
    "duplicate_key_hint", "duplicate_output_stem", "empty_data", "empty_data_hint", "expression_arity",
    "expression_array_hole", "expression_assignment_hint", "expression_bad_character",
    "expression_bad_escape", "expression_bad_number", "expression_bad_regex", "expression_bad_regex_flags",
    "expression_duplicate_key", "expression_event_name", "expression_expected", "expression_illegal_key",
    "expression_length_of_integer", "expression_not_a_function_name", "expression_not_allowed",
    "expression_nothing", "expression_octal", "expression_reserved_name", "expression_throws",
    "expression_throws_hint", "expression_too_deep", "expression_trailing", "expression_unclosed",
    "expression_unknown_function", "expression_unknown_name", "expression_unterminated_string",
    "facet_channel_hint", "facet_property_not_allowed", "field_backslash", "field_backslash_hint", "field_dropped", "field_dropped_hint", "field_hint",
    "field_not_found", "file_not_found", "files_in_folder", "font_directory_hint", "font_directory_missing", "forbidden_character",
    "forbidden_character_hint",
    "format_path", "gallery_partly_written", "gallery_unwritable", "image_url", "image_url_hint",
    "index_charts_changed", "init_not_a_folder", "init_schema_current", "init_schema_is_source",
    "init_schema_updated", "init_schema_written", "init_settings_configured", "init_settings_exists",
    "init_settings_written", "integer_range_hint", "invalid_json", "invalid_utf8", "invalid_utf8_hint",
    "invalid_yaml", "keep_code", "key_not_string", "key_not_string_hint", "known_shapes", "layer_needs_mark",
    "layer_needs_mark_hint", "leftover_removed", "log_scale_hint", "log_scale_non_positive",
    "manifest_dataset_refused", "manifest_duplicate_key", "manifest_expected", "manifest_hash_refused",
    "manifest_key_missing", "manifest_output_refused", "manifest_path_absolute", "manifest_path_not_normal",
    "manifest_path_not_regular", "manifest_path_outside", "manifest_refused_hint", "manifest_stem_refused",
    "manifest_text_too_long", "manifest_too_many", "manifest_unreadable", "mark_and_layers",
    "math_nested_script", "math_nested_script_hint", "math_no_script_form", "math_no_script_form_hint",
    "math_unbalanced", "math_unbalanced_hint", "math_unknown_command", "math_unknown_command_hint",
    "mark_and_layers_hint", "mark_and_trend", "mark_property_hint", "mark_property_not_for", "marker_absent",
    "marker_unstyled", "marker_unstyled_hint", "markers_on_trend", "markers_with_layers", "missing_key",
    "multiple_documents", "multiple_documents_hint", "needs_one_of_keys", "new_file_exists",
    "new_schema_written", "new_written", "no_mark", "no_mark_hint", "non_finite_number",
    "non_finite_number_hint", "not_a_color", "not_a_mapping", "not_a_mapping_hint", "not_dates",
    "not_dates_hint", "not_one_of", "number_format_too_large", "number_format_too_large_hint",
    "number_out_of_range", "or_list", "out_of_bounds", "output_leftover", "output_missing", "output_modified",
    "output_not_built", "output_orphaned", "output_removed", "output_stale", "output_untracked",
    "pdf_not_reproducible", "project_file_hint", "project_file_invalid", "project_file_unwritable",
    "quoted_list", "recursive_alias", "render_crashed",
    "render_failed_hint", "render_limit", "render_limit_hint", "render_raised", "render_refused",
    "render_refused_hint", "render_refused_other_hint", "render_text_too_long", "render_timed_out",
    "render_timeout_hint", "reserved_output_stem", "rows_unknowable_parse_conflict",
    "rows_unknowable_random", "rows_unknowable_unparsed", "rows_unknowable_unsupported", "schema_copy_stale",
    "schema_copy_stale_hint", "serve_bad_request_line", "serve_build_crashed", "serve_built", "serve_changed",
    "serve_head_too_large", "serve_host_missing", "serve_host_refused", "serve_http_error", "serve_listening",
    "serve_port_unavailable", "serve_problem_count", "serve_request_failed", "serve_stopped",
    "serve_target_bad_escape", "serve_target_control", "serve_target_dot_segment", "serve_target_not_a_path",
    "serve_target_not_ascii", "serve_target_not_utf8", "serve_target_too_long", "serve_watch_failed",
    "spec_is_directory", "spec_not_found", "spec_too_large", "spec_too_large_hint", "spec_unreadable",
    "syntax_context_hint", "tab_indentation", "tab_indentation_hint", "tab_not_allowed",
    "tab_not_allowed_hint", "text_too_long", "text_too_long_hint", "too_deeply_nested", "too_many_bins",
    "too_many_cells_hint", "too_many_marks", "too_many_marks_hint", "too_many_panels", "too_many_panels_hint", "toolchain_differs",
    "too_many_rows_grouped_by_renderer", "too_many_rows_grouped_by_renderer_hint",
    "stat_mode", "warm_folder_hint", "warm_incompatible", "warm_not_owned", "warm_not_plain", "warm_not_running", "warm_not_started", "warm_running", "warm_shared", "warm_started", "warm_stopped", "warm_unsupported",
    "trend_band_conflict",
    "trend_band_conflict_hint", "trend_band_level", "trend_band_level_hint", "trend_band_too_few_points",
    "trend_band_too_few_points_hint", "trend_band_unsupported", "trend_band_unsupported_hint",
    "trend_bandwidth", "trend_bandwidth_hint", "trend_channel_derived", "trend_channel_derived_hint",
    "trend_channel_type", "trend_channel_type_hint", "trend_extent", "trend_extent_axis",
    "trend_extent_axis_hint", "trend_extent_date", "trend_extent_hint", "trend_extent_misses_data",
    "trend_extent_misses_data_hint", "trend_extent_nonpositive", "trend_extent_nonpositive_hint",
    "trend_extent_text", "trend_extent_text_hint", "trend_facet_derived", "trend_facet_derived_hint",
    "trend_in_group", "trend_in_panel", "trend_label_differs_by_panel", "trend_label_differs_by_panel_hint",
    "trend_label_format", "trend_label_format_hint", "trend_label_placeholder",
    "trend_label_placeholder_hint", "trend_label_spec_too_large", "trend_label_spec_too_large_hint",
    "trend_label_too_long", "trend_label_too_long_hint", "trend_label_undefined",
    "trend_label_undefined_hint", "trend_log_on_log_axis", "trend_log_on_log_axis_hint", "trend_needs_xy",
    "trend_nonpositive", "trend_nonpositive_hint", "trend_not_finite", "trend_not_finite_hint",
    "trend_not_numeric", "trend_not_numeric_hint", "trend_order_too_high", "trend_order_too_high_hint",
    "trend_poly_order", "trend_poly_order_hint", "trend_quad_order", "trend_quad_order_hint",
    "trend_rows_unknown", "trend_rows_unknown_hint", "trend_samples", "trend_scale_exponent",
    "trend_too_few_x", "trend_too_few_x_hint", "trend_too_many_rows", "trend_too_many_rows_hint",
    "trend_unknown_method", "trend_unknown_scale",
    "trend_unknown_space", "trend_window", "trend_window_hint", "trend_x_span_subnormal",
    "trend_x_span_subnormal_hint", "undefined_alias", "undefined_alias_hint", "unknown_code", "unknown_key",
    "unknown_preset",
    "unknown_shape", "unsafe_font", "unsafe_font_hint", "unsafe_text", "unsafe_text_hint",
    "unscaled_colors", "unscaled_colors_hint", "unsupported_tag", "unsupported_tag_hint",
    "unsupported_yaml_version", "unsupported_yaml_version_hint", "vega_lite_invalid",
    "vega_lite_invalid_hint", "vega_lite_refused", "wrong_size", "wrong_type",
    "facet_wrap_two_fields", "facet_wrap_two_fields_hint", "pow10_linear", "pow10_linear_hint",
    "param_bind", "param_duplicate", "param_on_trend", "param_undefined", "param_undefined_hint",
    "impute_frame_unused", "impute_frame_unused_hint", "impute_sequence_too_long", "impute_sequence_too_long_hint",
    "impute_value_unused", "impute_value_unused_hint",
    "window_frame_hint", "window_frame_order", "window_op_needs_field", "window_op_param",
    "condition_value_and_field", "condition_value_and_field_hint", "condition_field_without_value",
    "condition_field_without_value_hint",
    "extent_ci_unsupported", "extent_ci_unsupported_hint", "trend_extent_ci", "trend_extent_ci_hint",
    "data_path_outside_hint",
    "axis_labels_blank", "axis_labels_blank_hint", "axis_labels_overlap", "axis_labels_overlap_hint",
    "facet_panel_empty", "facet_panel_empty_hint", "layer_drew_fewer", "layer_drew_fewer_hint",
    "legend_entries_identical", "legend_entries_identical_hint", "text_outside_view", "text_outside_view_hint",
    "text_truncated", "text_truncated_hint", "trend_over_nothing", "trend_over_nothing_hint",
    "notebook_usage", "notebook_variable_missing", "table_and_source", "table_and_source_hint",
    "table_not_named", "table_not_passed", "table_not_passed_hint", "table_type", "table_type_hint",
    "table_unreadable",
]

# The statistics' messages (issue 20).
__all__ += [
    "trend_ewm_decay", "trend_ewm_decay_hint", "trend_loess_band_interpolates", "trend_loess_band_interpolates_hint",
    "trend_loess_band_rows", "trend_loess_band_rows_hint", "trend_logistic_values", "trend_logistic_values_hint",
    "trend_not_converged", "trend_parameter_bound", "trend_parameter_choice", "trend_parameter_unused",
    "trend_robust_weighted", "trend_robust_weighted_hint", "trend_weight_field", "trend_weight_nonpositive",
    "trend_weight_nonpositive_hint", "trend_weight_not_found",
]



# The density transform's messages (issue 20).
__all__ += [
    "density_bandwidth_negative", "density_bandwidth_negative_hint", "density_extent_empty", "density_not_numeric",
    "density_not_numeric_hint",
]

# The arc mark's messages (issue 20): pies and donuts.
__all__ += [
    "arc_position_channel", "arc_position_channel_hint", "arc_without_theta", "arc_without_theta_hint",
    "polar_channel_not_for", "polar_channel_not_for_hint", "polar_channel_without_value",
    "polar_channel_without_value_hint",
]

# The grammar the second corpus needs (issue 20): filters by a selection, error bar caps.
from .data import rows_unknowable_selection  # noqa: E402
from .validate import filter_param_undefined  # noqa: E402

__all__ += ["filter_param_undefined", "rows_unknowable_selection"]
# The lookup transform's messages (issue 20).
__all__ += [
    "lookup_as_count", "lookup_as_count_hint", "lookup_columns_hint", "lookup_duplicate_key",
    "lookup_duplicate_key_hint", "lookup_field_not_found", "lookup_key_not_found", "lookup_source",
]
from .data import engine_query_failed, engine_unavailable, engine_unavailable_hint  # noqa: E402  (the data engine)
from .data import data_changed_while_read_hint  # noqa: E402  (rows failing after they were opened)
from .validate import unknown_engine  # noqa: E402  (the project file's engine)
__all__ += ["engine_query_failed", "engine_unavailable", "engine_unavailable_hint", "unknown_engine"]
__all__ += ["data_changed_while_read_hint"]
